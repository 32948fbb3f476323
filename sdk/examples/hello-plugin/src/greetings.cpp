#include "greetings.hpp"

namespace hello {

using namespace signet;

std::string greetingFor(const std::string& name) {
  if (name.empty() || name.size() > 64)
    throw invalidArgument("invalid field parameters.name: \"" + name +
                          "\" must have 1 to 64 characters");
  for (unsigned char c : name)
    if (c < 0x20 || c == 0x7f)
      throw invalidArgument("invalid field parameters.name: it holds a control character");
  return "Hello, " + name + "!";
}

const Shape<GreetParameters> kGreet = {field("name", &GreetParameters::name, {.maxLength = 64})};

json::Object greet(ActivityContext& ctx, const GreetParameters& params) {
  const std::string& name = params.name;
  std::string greeting = greetingFor(name);
  std::string id = ctx.newId();
  ctx.db().exec(
      "INSERT INTO hello_greetings (id, organization_id, name, greeting, created_at_ms) "
      "VALUES (?, ?, ?, ?, ?)",
      {id, ctx.organizationId(), name, greeting, ctx.nowMs()});
  json::Object result = json::object();
  result->set("greetingId", id);
  result->set("greeting", greeting);
  return result;
}

json::Object listGreetings(RequestContext& ctx, const json::Object&) {
  json::Array greetings = json::array();
  for (const auto& row :
       ctx.db().query("SELECT id, name, greeting FROM hello_greetings WHERE organization_id = ? "
                      "ORDER BY created_at_ms, id",
                      {ctx.organizationId()})) {
    json::Object g = json::object();
    g->set("greetingId", row.str("id"));
    g->set("name", row.str("name"));
    g->set("greeting", row.str("greeting"));
    greetings->add(g);
  }
  json::Object out = json::object();
  out->set("greetings", greetings);
  return out;
}

json::Object facts(RequestContext&, const json::Object& params) {
  json::Object out = json::object();
  std::string name = json::optionalString(params, "name", "parameters").value_or("");
  json::Object hello = json::object();
  hello->set("name", name);
  hello->set("name_length", static_cast<int64_t>(name.size()));
  out->set("hello", hello);
  return out;
}

std::vector<Migration> migrations() {
  return {{1,
           "greetings",
           {"CREATE TABLE hello_greetings (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, "
            "name TEXT NOT NULL, greeting TEXT NOT NULL, created_at_ms BIGINT NOT NULL)",
            "CREATE INDEX hello_greetings_by_organization ON hello_greetings "
            "(organization_id, created_at_ms)"}}};
}

}  // namespace hello
