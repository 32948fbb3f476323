// What became of each email the plugin sent, as its transport reported it: the events
// list_email_events answers with (v1EmailEvent). A relay that takes the message is a Send, with
// its reply; a reply of 4xx, or a relay that cannot be reached or does not finish in time, is a
// DeliveryDelay; a reply of 5xx is a Bounce (Permanent). Recorded in the transaction that stores
// the activity's final state (AfterCommitCall::keep), so a delivery that failed its activity is
// still on record. Addresses are kept as sent, never a message's text or code.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "signet/plugin.hpp"

namespace sessions {

struct EmailEvent {
  std::string messageId;  // the Message-ID header's, without its angle brackets
  std::string type;       // Send, DeliveryDelay or Bounce
  std::string fromAddress;
  std::string toAddress;
  signet::json::Object details;  // v1EmailEventDetails
};

// What a delivery attempt reports: filled by Delivery::sendEmail before it returns or throws.
using EmailReport = std::optional<EmailEvent>;

void recordEmailEvent(signet::ActivityContext& ctx, const std::string& organizationId,
                      const EmailEvent& event);

// An email sent once its activity is committed, with its report kept in `organizationId`'s
// events: `send` is given where to report (Delivery::sendEmail's `report`).
signet::AfterCommitCall emailCall(const std::string& organizationId,
                                  std::function<void(EmailReport*)> send,
                                  std::function<void(signet::ActivityContext&)> undo);
// list_email_events: {organizationId, email, eventType?, paginationOptions?}, newest first.
signet::json::Object listEmailEvents(signet::RequestContext& ctx, const signet::json::Object& body);

}  // namespace sessions
