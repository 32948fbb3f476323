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
  e->set("id", r.str(0));
  e->set("organizationId", r.str(1));
  e->set("messageId", r.str(2));
  e->set("eventType", r.str(3));
  e->set("fromAddress", r.str(4));
  e->set("toAddress", r.str(5));
  e->set("details", json::parseObject(r.str(6), "a stored email event"));
  // Both are when the transport reported it: the gateway learns nothing of the message later.
  e->set("timestamp", std::to_string(r.i64(7)));
  e->set("createdAt", std::to_string(r.i64(7)));
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
  bool reversed = appendPage(
      sql, params, page, /*newestFirst=*/true,
      cursorIn(ctx.db(), "session_email_events", ctx.organizationId(), "an email event"));
  auto rows = ctx.db().query(sql, params);
  if (reversed) std::reverse(rows.begin(), rows.end());
  json::Array events = json::array();
  for (const auto& row : rows) events->add(toJson(row));
  json::Object r = json::object();
  r->set("emailEvents", events);
  return r;
}

}  // namespace sessions
