#include "memo.hpp"

namespace memo {

using namespace signet;

std::vector<Migration> migrations() {
  return {{1,
           "memo entries",
           {"CREATE TABLE memo_entries (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, "
            "activity_id TEXT NOT NULL, author_user_id TEXT NOT NULL, text TEXT NOT NULL, "
            "created_at_ms BIGINT NOT NULL)",
            "CREATE INDEX memo_entries_organization ON memo_entries (organization_id, "
            "created_at_ms)"}},
          {2, "memo titles (V2)", {"ALTER TABLE memo_entries ADD COLUMN title TEXT"}}};
}

json::Object createMemo(ActivityContext& ctx, const json::Object& params) {
  // Shapes and lengths were checked before policies ran (the rows' parameters). V2 adds a
  // title; V1 memos have none.
  std::optional<std::string> title;
  if (ctx.activityVersion() >= 2) title = json::requireString(params, "title", "parameters");
  std::string text = json::requireString(params, "text", "parameters");
  std::string id = ctx.newId();
  ctx.db().exec(
      "INSERT INTO memo_entries (id, organization_id, activity_id, author_user_id, text, "
      "created_at_ms, title) VALUES (?, ?, ?, ?, ?, ?, ?)",
      {id, ctx.organizationId(), ctx.activityId(), ctx.caller().userId, text, ctx.nowMs(),
       title ? SqlValue(*title) : SqlValue(nullptr)});
  json::Object result = json::object();
  result->set("memoId", id);
  if (title) result->set("title", *title);
  return result;
}

json::Object listMemos(RequestContext& ctx, const json::Object&) {
  json::Array memos = json::array();
  for (const auto& row :
       ctx.db().query("SELECT id, author_user_id, text, created_at_ms, title FROM "
                      "memo_entries WHERE organization_id = ? ORDER BY "
                      "created_at_ms, id",
                      {ctx.organizationId()})) {
    json::Object m = json::object();
    m->set("memoId", row.str("id"));
    m->set("authorUserId", row.str("author_user_id"));
    m->set("text", row.str("text"));
    m->set("createdAt", json::timestamp(row.i64("created_at_ms")));
    if (auto title = row.optStr("title")) m->set("title", *title);
    memos->add(m);
  }
  json::Object out = json::object();
  out->set("memos", memos);
  return out;
}

HttpReply about(RequestContext&, const HttpCall& call) {
  HttpReply reply;
  reply.contentType = "text/plain; charset=utf-8";
  reply.body = "memo: organization memos, served at " + call.path + "\n";
  return reply;
}

HttpReply latest(RequestContext& ctx, const HttpCall&) {
  json::Object out = json::object();
  out->set("organizationId", ctx.organizationId());
  out->set("askedBy", ctx.caller().userId);
  auto row = ctx.db().queryOne(
      "SELECT text FROM memo_entries WHERE organization_id = ? ORDER BY created_at_ms DESC, id "
      "DESC LIMIT 1",
      {ctx.organizationId()});
  if (row) out->set("text", row->str("text"));
  HttpReply reply;
  reply.body = json::stringify(out);
  return reply;
}

}  // namespace memo
