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

const Shape<MemoParameters> kCreateMemoV1 = {
    field("text", &MemoParameters::text, {.maxLength = kMaxMemoBytes})};
const Shape<MemoParameters> kCreateMemoV2 = {
    field("title", &MemoParameters::title, {.maxLength = kMaxTitleBytes, .required = true}),
    field("text", &MemoParameters::text, {.maxLength = kMaxMemoBytes})};

json::Object createMemo(ActivityContext& ctx, const MemoParameters& params) {
  // V2 added a title, which V1's shape does not read: V1 memos have none.
  const auto& title = params.title;
  const std::string& text = params.text;
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
