// signet/typed_parameters.hpp: one table of fields gives an activity's declared shape and reads
// a checked intent into the handler's struct; a value that breaks the shape is refused naming
// its path.
#include <gtest/gtest.h>

#include <functional>

#include "signet/parameter_shape.hpp"
#include "signet/testkit.hpp"
#include "signet/typed_parameters.hpp"

using namespace signet;

namespace {

struct Account {
  std::string curve;
  std::optional<std::string> path;
};
struct Wallet {
  std::string name;
  std::vector<Account> accounts;
};
struct Request {
  std::string signWith;
  std::optional<std::string> memo;
  bool dryRun = false;
  int64_t count = 0;
  std::vector<std::string> payloads;
  std::optional<Wallet> wallet;
  json::Object extra;
  std::optional<int64_t> length;
};

const Shape<Account> kAccount = {field("curve", &Account::curve, {.maxLength = 32}),
                                 field("path", &Account::path)};
const Shape<Wallet> kWallet = {field("name", &Wallet::name, {.displayName = true}),
                               field("accounts", &Wallet::accounts, kAccount)};
const Shape<Request> kRequest = {field("signWith", &Request::signWith, {.uuid = true}),
                                 field("memo", &Request::memo),
                                 field("dryRun", &Request::dryRun),
                                 field("count", &Request::count),
                                 field("payloads", &Request::payloads, {.maxLength = 4}),
                                 field("wallet", &Request::wallet, kWallet),
                                 field("extra", &Request::extra),
                                 field("length", &Request::length, {.decimal = true})};

const char* kId = "0d3c3a4e-6c1b-4f43-9b44-2d0c2f3e8a11";

json::Object wellFormed() {
  return json::parseObject(std::string(R"({"signWith": ")") + kId + R"(", "dryRun": true,
      "count": 7, "payloads": ["ab", "cd"], "extra": {"any": [1]},
      "wallet": {"name": "w", "accounts": [{"curve": "ed"}, {"curve": "k1", "path": "m/0"}]}})",
                           "test");
}

// The message of the InvalidArgument that `read` throws; empty when it throws none.
std::string refusalOf(const std::function<void()>& read) {
  try {
    read();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::kInvalidArgument) << e.what();
    return e.what();
  }
  return "";
}
std::string refusal(const json::Object& p) {
  return refusalOf([&] { kRequest.read(p); });
}

}  // namespace

TEST(TypedParameters, TheTableDeclaresEachMembersShape) {
  const auto& specs = kRequest.specs();
  ASSERT_EQ(specs.size(), 8u);
  EXPECT_EQ(specs[0].name, "signWith");
  EXPECT_EQ(specs[0].type, ParamType::kUuid);
  EXPECT_TRUE(specs[0].required);
  EXPECT_FALSE(specs[1].required);  // std::optional
  EXPECT_EQ(specs[1].type, ParamType::kString);
  EXPECT_EQ(specs[2].type, ParamType::kBool);
  EXPECT_EQ(specs[3].type, ParamType::kInteger);
  EXPECT_EQ(specs[4].type, ParamType::kArray);
  EXPECT_EQ(specs[4].elements, ParamType::kString);
  EXPECT_EQ(specs[4].maxLength, 4u);
  EXPECT_EQ(specs[5].type, ParamType::kObject);
  EXPECT_FALSE(specs[5].required);
  ASSERT_EQ(specs[5].fields.size(), 2u);
  EXPECT_EQ(specs[5].fields[1].name, "accounts");
  EXPECT_TRUE(specs[5].fields[0].displayName);
  EXPECT_EQ(specs[5].fields[1].type, ParamType::kArray);
  ASSERT_EQ(specs[5].fields[1].fields.size(), 2u);
  EXPECT_EQ(specs[5].fields[1].fields[0].maxLength, 32u);
  EXPECT_EQ(specs[6].type, ParamType::kObject);
  EXPECT_TRUE(specs[6].fields.empty());
  EXPECT_EQ(specs[7].type, ParamType::kDecimal);
  EXPECT_FALSE(specs[7].required);
}

TEST(TypedParameters, ACheckedIntentIsReadIntoTheStruct) {
  Request r = kRequest.read(wellFormed());
  EXPECT_EQ(r.signWith, kId);
  EXPECT_FALSE(r.memo.has_value());
  EXPECT_TRUE(r.dryRun);
  EXPECT_EQ(r.count, 7);
  EXPECT_EQ(r.payloads, (std::vector<std::string>{"ab", "cd"}));
  ASSERT_TRUE(r.wallet.has_value());
  EXPECT_EQ(r.wallet->name, "w");
  ASSERT_EQ(r.wallet->accounts.size(), 2u);
  EXPECT_EQ(r.wallet->accounts[0].curve, "ed");
  EXPECT_FALSE(r.wallet->accounts[0].path.has_value());
  EXPECT_EQ(r.wallet->accounts[1].path.value_or(""), "m/0");
  EXPECT_FALSE(r.length.has_value());
  ASSERT_TRUE(r.extra);
  EXPECT_TRUE(r.extra->has("any"));

  // A 64-bit field comes as a number or in a decimal string.
  for (const auto& length : {Poco::Dynamic::Var(24), Poco::Dynamic::Var("24")}) {
    auto p = wellFormed();
    p->set("length", length);
    EXPECT_EQ(kRequest.read(p).length.value_or(0), 24);
  }

  // Null is absent: an optional member stays empty, and a required one is missing.
  auto p = wellFormed();
  p->set("memo", Poco::Dynamic::Var());
  p->set("wallet", Poco::Dynamic::Var());
  Request nulls = kRequest.read(p);
  EXPECT_FALSE(nulls.memo.has_value());
  EXPECT_FALSE(nulls.wallet.has_value());
  p->set("count", Poco::Dynamic::Var());
  EXPECT_EQ(refusal(p), "missing required field parameters.count");
}

// One struct for every version of an activity, a shape per version: the field V2 added is
// optional in the struct, absent from V1's shape and required by V2's.
TEST(TypedParameters, AVersionsShapeRequiresTheFieldItAdded) {
  struct Memo {
    std::optional<std::string> title;
    std::string text;
  };
  const Shape<Memo> v1 = {field("text", &Memo::text)};
  const Shape<Memo> v2 = {field("title", &Memo::title, {.maxLength = 8, .required = true}),
                          field("text", &Memo::text)};
  auto p = json::parseObject(R"({"title": "t", "text": "hi"})", "test");
  EXPECT_FALSE(v1.read(p).title.has_value());  // V1 does not read what it does not declare
  EXPECT_EQ(v2.read(p).title.value_or(""), "t");
  EXPECT_TRUE(v2.specs()[0].required);
  p->remove("title");
  EXPECT_EQ(v1.read(p).text, "hi");
  EXPECT_EQ(refusalOf([&] { v2.read(p); }), "missing required field parameters.title");
}

TEST(TypedParameters, AListsRulesApplyToEachOfItsStrings) {
  struct Ids {
    std::vector<std::string> ids;
  };
  const Shape<Ids> shape = {field("ids", &Ids::ids, {.uuid = true})};
  EXPECT_EQ(shape.specs()[0].type, ParamType::kArray);
  EXPECT_EQ(shape.specs()[0].elements, ParamType::kUuid);
  auto p = json::parseObject(std::string(R"({"ids": [")") + kId + R"(", "x"]})", "test");
  EXPECT_EQ(refusalOf([&] { shape.read(p); }),
            "invalid field parameters.ids[1]: expected a UUID string, got a string");
  p->set("ids", json::stringArray({kId}));
  EXPECT_EQ(shape.read(p).ids, std::vector<std::string>{kId});
}

// Rules are values: one on a member it cannot apply to fails the registration that makes the
// shape, instead of passing the check and failing the read after policies ran.
TEST(TypedParameters, ARuleOnAMemberItCannotApplyToIsRefusedWhenTheShapeIsMade) {
  struct Misdeclared {
    bool flag = false;
    std::string text;
    std::optional<Wallet> wallet;
  };
  EXPECT_THROW(field("flag", &Misdeclared::flag, {.uuid = true}), std::logic_error);
  EXPECT_THROW(field("flag", &Misdeclared::flag, {.maxLength = 3}), std::logic_error);
  EXPECT_THROW(field("text", &Misdeclared::text, {.decimal = true}), std::logic_error);
  EXPECT_THROW(field("wallet", &Misdeclared::wallet, kWallet, {.maxLength = 3}), std::logic_error);
  // A later version's shape may require a nested object that the struct keeps optional.
  EXPECT_TRUE(field("wallet", &Misdeclared::wallet, kWallet, {.required = true}).spec.required);
  EXPECT_FALSE(field("wallet", &Misdeclared::wallet, kWallet).spec.required);
}

TEST(TypedParameters, AValueBreakingTheShapeIsRefusedNamingItsPath) {
  auto with = [](const std::string& json) {
    auto p = wellFormed();
    auto change = json::parseObject(json, "test");
    for (const auto& [k, v] : *change) p->set(k, v);
    return p;
  };
  EXPECT_EQ(refusal(with(R"({"signWith": "not-a-uuid"})")),
            "invalid field parameters.signWith: expected a UUID string, got a string");
  EXPECT_EQ(refusal(with(R"({"count": "7"})")),
            "invalid field parameters.count: expected an integer, got a string");
  EXPECT_EQ(refusal(with(R"({"count": true})")),
            "invalid field parameters.count: expected an integer, got a boolean");
  EXPECT_EQ(refusal(with(R"({"count": 9223372036854775808})")),
            "invalid field parameters.count: 9223372036854775808 is out of range for a 64-bit "
            "integer");
  EXPECT_EQ(refusal(with(R"({"payloads": ["ab", null]})")),
            "invalid field parameters.payloads[1]: expected a string, got null");
  EXPECT_EQ(refusal(with(R"({"payloads": ["ab", 3]})")),
            "invalid field parameters.payloads[1]: expected a string, got a number");
  EXPECT_EQ(refusal(with(R"({"payloads": ["ab", "abcde"]})")),
            "invalid field parameters.payloads[1]: must be 1 to 4 bytes, got 5");
  EXPECT_EQ(refusal(with(R"({"wallet": {"accounts": []}})")),
            "missing required field parameters.wallet.name");
  EXPECT_EQ(refusal(with(R"({"wallet": {"name": "w", "accounts": [{"curve": "ed"}, 4]}})")),
            "invalid field parameters.wallet.accounts[1]: expected an object, got a number");
  EXPECT_EQ(refusal(with(R"({"wallet": {"name": "w", "accounts": [{"path": "m"}]}})")),
            "missing required field parameters.wallet.accounts[0].curve");
  EXPECT_EQ(refusal(with(R"({"wallet": {"name": "a\tb", "accounts": []}})")),
            "invalid field parameters.wallet.name: it holds the control character U+0009 at "
            "byte 1");
  EXPECT_EQ(refusal(with(R"({"length": "2x"})")),
            "invalid field parameters.length: \"2x\" is not a decimal integer");
  EXPECT_EQ(refusal(with(R"({"length": true})")),
            "invalid field parameters.length: expected a decimal integer string, got a boolean");
  EXPECT_EQ(refusal(with(R"({"extra": []})")),
            "invalid field parameters.extra: expected an object, got an array");
}

TEST(TypedParameters, TheRowsHandlerGetsTheStruct) {
  testkit::PluginHarness harness([](Registry& r) {
    r.activity({.type = "ACTIVITY_TYPE_SIGNET_TEST_TYPED",
                .path = "signet_test_typed",
                .intentKey = "signetTestTypedIntent",
                .resultKey = "signetTestTypedResult",
                .resource = "MEMO",
                .action = "CREATE",
                .handler = kRequest.handler([](ActivityContext&, const Request& r) {
                  json::Object out = json::object();
                  out->set("signWith", r.signWith);
                  out->set("accounts", static_cast<int64_t>(r.wallet->accounts.size()));
                  out->set("second", r.payloads.at(1));
                  return out;
                }),
                .parameters = kRequest.specs()});
  });
  auto out = harness.submit("ACTIVITY_TYPE_SIGNET_TEST_TYPED", wellFormed());
  EXPECT_EQ(out->getValue<std::string>("signWith"), kId);
  EXPECT_EQ(out->getValue<int64_t>("accounts"), 2);
  EXPECT_EQ(out->getValue<std::string>("second"), "cd");
}

namespace {
// Settings where null means "remove": std::optional<std::optional<M>>, and closed shapes.
struct Colours {
  std::optional<std::string> fore, back;
};
struct Settings {
  std::optional<std::optional<int64_t>> limit;
  std::optional<std::optional<std::vector<std::string>>> origins;
  std::optional<std::optional<Colours>> colours;
  std::optional<std::vector<Colours>> themes;
};
const Shape<Colours>& coloursShape() {
  static const auto shape =
      Shape<Colours>::closed({field("fore", &Colours::fore), field("back", &Colours::back)});
  return shape;
}
const Shape<Settings> kSettings = Shape<Settings>::closed(
    {field("limit", &Settings::limit, {.decimal = true}), field("origins", &Settings::origins),
     field("colours", &Settings::colours, coloursShape()),
     field("themes", &Settings::themes, coloursShape())});
Settings settings(const std::string& text) {
  return kSettings.read(json::parseObject(text, "test"));
}
}  // namespace

TEST(TypedParameters, ANullableMemberTellsNullFromAbsent) {
  auto absent = settings("{}");
  EXPECT_FALSE(absent.limit.has_value());
  EXPECT_FALSE(absent.origins.has_value());
  EXPECT_FALSE(absent.colours.has_value());

  auto nulls = settings(R"({"limit": null, "origins": null, "colours": null})");
  ASSERT_TRUE(nulls.limit.has_value());
  EXPECT_FALSE(nulls.limit->has_value());
  ASSERT_TRUE(nulls.origins.has_value());
  EXPECT_FALSE(nulls.origins->has_value());
  ASSERT_TRUE(nulls.colours.has_value());
  EXPECT_FALSE(nulls.colours->has_value());

  auto values = settings(R"({"limit": "12", "origins": ["a", "b"], "colours": {"fore": "red"}})");
  ASSERT_TRUE(values.limit && *values.limit);
  EXPECT_EQ(**values.limit, 12);
  ASSERT_TRUE(values.origins && *values.origins);
  EXPECT_EQ(**values.origins, (std::vector<std::string>{"a", "b"}));
  ASSERT_TRUE(values.colours && *values.colours);
  EXPECT_EQ((*values.colours)->fore, "red");
  EXPECT_FALSE((*values.colours)->back.has_value());

  // Nullable is optional: a required rule on it is a mistake in the table.
  struct R {
    std::optional<std::optional<std::string>> x;
  };
  EXPECT_THROW(field("x", &R::x, {.required = true}), std::logic_error);
  EXPECT_FALSE(field("x", &R::x).spec.required);
}

TEST(TypedParameters, AClosedShapeRefusesAFieldItDoesNotDeclare) {
  auto refused = [](const std::string& text) { return refusalOf([&] { settings(text); }); };
  EXPECT_EQ(refused(R"({"limt": 3})"),
            "invalid field parameters.limt: no such field; the fields are limit, origins, "
            "colours, themes");
  EXPECT_EQ(refused(R"({"colours": {"fore": "red", "middle": "grey"}})"),
            "invalid field parameters.colours.middle: no such field; the fields are fore, back");
  EXPECT_EQ(refused(R"({"themes": [{"back": "black"}, {"side": "x"}]})"),
            "invalid field parameters.themes[1].side: no such field; the fields are fore, back");
  // A name a stranger sent is shown quoted, with every byte but printable ASCII as \xNN, when
  // it could forge a log line or pass for another name; a long one is cut and marked.
  const std::string fields = ": no such field; the fields are limit, origins, colours, themes";
  EXPECT_EQ(refused("{\"a\\nb\": 1}"), "invalid field parameters.\"a\\x0ab\"" + fields);
  EXPECT_EQ(refused("{\"a\\\"b\": 1}"), "invalid field parameters.\"a\\x22b\"" + fields);
  EXPECT_EQ(refused("{\"caf\u00e9\": 1}"), "invalid field parameters.\"caf\\xc3\\xa9\"" + fields);
  EXPECT_EQ(refused("{\"" + std::string(101, 'x') + "\": 1}"),
            "invalid field parameters.\"" + std::string(100, 'x') + "...\"" + fields);
  // The nested closure is in the declared shape, so admission refuses it before any policy.
  const auto& specs = kSettings.specs();
  EXPECT_TRUE(specs[2].closed);
  EXPECT_TRUE(specs[3].closed);
  EXPECT_FALSE(specs[0].closed);
  EXPECT_EQ(refusalOf([&] {
              checkParameterShapes(
                  specs, json::parseObject(R"({"colours": {"fore": "red", "x": 1}})", "test"));
            }),
            "invalid field parameters.colours.x: no such field; the fields are fore, back");
  // An open shape takes what it does not declare, as before.
  EXPECT_EQ(refusal([] {
              auto p = wellFormed();
              p->set("unknown", 1);
              return p;
            }()),
            "");
}

// Poco counts a boolean as an integer; the json:: helpers a handler reads with do not.
TEST(JsonIntegers, ABooleanIsNotAnInteger) {
  auto p = json::parseObject(R"({"n": true, "m": 3, "s": "12"})", "test");
  EXPECT_EQ(json::requireInt(p, "m", "parameters"), 3);
  EXPECT_EQ(json::optionalInt64String(p, "s", "parameters").value_or(0), 12);
  EXPECT_EQ(refusalOf([&] { json::requireInt(p, "n", "parameters"); }),
            "invalid field parameters.n: expected an integer, got a boolean");
  EXPECT_EQ(refusalOf([&] { json::optionalInt64String(p, "n", "parameters"); }),
            "invalid field parameters.n: expected a decimal integer string, got a boolean");
}
