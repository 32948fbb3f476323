#include "email_events.hpp"

#include <algorithm>

#include "signet/error.hpp"
#include "signet/pagination.hpp"

namespace sessions {

using namespace signet;

namespace {
constexpr const char* kEventTypes[] = {"Send", "DeliveryDelay", "Bounce"};

json::Object toJson(const Row& r) {
  json::Object e = json::object();
  e->set("id", r.str("id"));
  e->set("organizationId", r.str("organization_id"));
  e->set("messageId", r.str("message_id"));
  e->set("eventType", r.str("event_type"));
  e->set("fromAddress", r.str("from_address"));
  e->set("toAddress", r.str("to_address"));
  e->set("details", json::parseObject(r.str("details"), "a stored email event"));
  // Both are when the transport reported it: the gateway learns nothing of the message later.
  e->set("timestamp", std::to_string(r.i64("created_at_ms")));
  e->set("createdAt", std::to_string(r.i64("created_at_ms")));
  return e;
}
}  // namespace

void recordEmailEvent(ActivityContext& ctx, const std::string& organizationId,
                      const EmailEvent& event) {
  ctx.db().exec(
      "INSERT INTO session_email_events (id, organization_id, message_id, event_type, "
      "from_address, to_address, details, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      {ctx.newId(), organizationId, event.messageId, event.type, event.fromAddress, event.toAddress,
       json::stringify(event.details), ctx.nowMs()});
}

AfterCommitCall emailCall(const std::string& organizationId, std::function<void(EmailReport*)> send,
                          std::function<void(ActivityContext&)> undo) {
  auto report = std::make_shared<EmailReport>();
  return {[report, send = std::move(send)] { send(report.get()); }, std::move(undo),
          [report, organizationId](ActivityContext& ctx) {
            if (*report) recordEmailEvent(ctx, organizationId, **report);
          }};
}

json::Object listEmailEvents(RequestContext& ctx, const json::Object& body) {
  std::string email = json::requireString(body, "email", "");
  if (email.empty()) throw invalidArgument("invalid field email: it is empty");
  auto type = json::optionalString(body, "eventType", "");
  if (type && !type->empty() &&
      std::find(std::begin(kEventTypes), std::end(kEventTypes), *type) == std::end(kEventTypes))
    throw invalidArgument("invalid field eventType: \"" + *type +
                          "\" is not one this gateway records (Send, DeliveryDelay, Bounce)");
  Pagination page = parsePagination(body);
  std::string sql =
      "SELECT id, organization_id, message_id, event_type, from_address, to_address, details, "
      "created_at_ms FROM session_email_events WHERE organization_id = ? AND to_address = ?";
  SqlParams params{ctx.organizationId(), email};
  if (type && !type->empty()) {
    sql += " AND event_type = ?";
    params.emplace_back(*type);
  }
  auto rows =
      queryPage(ctx.db(), sql, params, page, /*newestFirst=*/true,
                cursorIn(ctx.db(), "session_email_events", ctx.organizationId(), "an email event"));
  json::Array events = json::array();
  for (const auto& row : rows) events->add(toJson(row));
  json::Object r = json::object();
  r->set("emailEvents", events);
  return r;
}

}  // namespace sessions
