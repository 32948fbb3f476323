#include "chains/solana/solana_idl.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <functional>
#include <set>

#include "signet/crypto.hpp"
#include "signet/error.hpp"
#include "signet/plugin.hpp"

namespace signing {

using namespace signet;
using json::Object;
using Poco::Dynamic::Var;
using Kind = IdlType::Kind;

namespace {

// Decoding budgets: a transaction is at most 1232 bytes, yet zero-sized elements (an empty
// struct in a vector) could still claim billions of values, and nesting is bounded anyway.
constexpr size_t kMaxDecodedValues = 4096;
constexpr size_t kMaxDepth = 32;

struct Scalar {
  const char* name;
  Kind kind;
};
// clang-format off
const Scalar kScalars[] = {
    {"bool", Kind::kBool}, {"u8", Kind::kU8},   {"u16", Kind::kU16},   {"u32", Kind::kU32},
    {"u64", Kind::kU64},   {"u128", Kind::kU128}, {"i8", Kind::kI8},   {"i16", Kind::kI16},
    {"i32", Kind::kI32},   {"i64", Kind::kI64},  {"i128", Kind::kI128}, {"f32", Kind::kF32},
    {"f64", Kind::kF64},   {"bytes", Kind::kBytes}, {"string", Kind::kString},
    {"publicKey", Kind::kPublicKey}, {"pubkey", Kind::kPublicKey},
};
// clang-format on

bool isObject(const Var& v) {
  return v.type() == typeid(Object);
}
bool isArray(const Var& v) {
  return v.type() == typeid(json::Array);
}

[[noreturn]] void refuse(const std::string& field, const std::string& why) {
  throw invalidArgument("invalid field " + field + ": " + why);
}

IdlType parseType(const Var& v, const std::string& field) {
  IdlType t;
  if (v.isString()) {
    std::string name = v.extract<std::string>();
    for (const auto& s : kScalars)
      if (name == s.name) {
        t.kind = s.kind;
        return t;
      }
    refuse(field, "unknown IDL type \"" + name + "\"");
  }
  if (!isObject(v) || v.extract<Object>()->size() != 1)
    refuse(field, "an IDL type is a name or an object with one key, got " + json::stringify(v));
  Object o = v.extract<Object>();
  const std::string key = o->begin()->first;
  const Var& inner = o->begin()->second;
  auto one = [&](Kind kind) {
    t.kind = kind;
    t.items.push_back(parseType(inner, field + "." + key));
    return t;
  };
  auto list = [&](Kind kind, size_t want) {
    if (!isArray(inner)) refuse(field + "." + key, "must be an array");
    auto a = inner.extract<json::Array>();
    if (want && a->size() != want)
      refuse(field + "." + key, "must have " + std::to_string(want) + " entries");
    t.kind = kind;
    for (size_t i = 0; i < a->size(); ++i)
      t.items.push_back(parseType(a->get(static_cast<unsigned>(i)),
                                  field + "." + key + "[" + std::to_string(i) + "]"));
    return t;
  };
  if (key == "vec") return one(Kind::kVec);
  if (key == "option") return one(Kind::kOption);
  if (key == "coption") return one(Kind::kCOption);
  if (key == "hashSet" || key == "bTreeSet") return one(Kind::kSet);
  if (key == "tuple") return list(Kind::kTuple, 0);
  if (key == "hashMap" || key == "bTreeMap") return list(Kind::kMap, 2);
  if (key == "array") {
    if (!isArray(inner) || inner.extract<json::Array>()->size() != 2)
      refuse(field + ".array", "must be [type, length]");
    auto a = inner.extract<json::Array>();
    t.kind = Kind::kArray;
    t.items.push_back(parseType(a->get(0), field + ".array[0]"));
    const Var& n = a->get(1);
    if (!n.isInteger() || n.isString() || n.convert<int64_t>() < 0 || n.convert<int64_t>() > 4096)
      refuse(field + ".array[1]", "must be a length from 0 to 4096");
    t.length = n.convert<size_t>();
    return t;
  }
  if (key == "defined") {
    t.kind = Kind::kDefined;
    if (inner.isString())
      t.defined = inner.extract<std::string>();
    else if (isObject(inner))
      t.defined = json::requireString(inner.extract<Object>(), "name", field + ".defined");
    else
      refuse(field + ".defined", "must be a type name or {\"name\": ...}");
    return t;
  }
  refuse(field, "unknown IDL type {\"" + key + "\": ...}");
}

// Fields of a struct or variant: [{name, type}] or, for tuples, [type].
std::vector<IdlField> parseFields(const json::Array& a, const std::string& field, bool& tuple) {
  std::vector<IdlField> out;
  for (size_t i = 0; i < a->size(); ++i) {
    std::string at = field + "[" + std::to_string(i) + "]";
    const Var& f = a->get(static_cast<unsigned>(i));
    bool named = isObject(f) && f.extract<Object>()->has("name");
    if (i == 0) tuple = !named;
    if (named == tuple) refuse(at, "mixes named and unnamed fields");
    if (named) {
      Object o = f.extract<Object>();
      if (!o->has("type")) refuse(at, "missing required field type");
      out.push_back({json::requireString(o, "name", at), parseType(o->get("type"), at + ".type")});
    } else {
      out.push_back({"", parseType(f, at)});
    }
  }
  return out;
}

IdlTypeDef parseTypeDef(const Object& o, const std::string& field) {
  Object ty = json::requireObject(o, "type", field);
  std::string kind = json::requireString(ty, "kind", field + ".type");
  IdlTypeDef d;
  if (kind == "struct") {
    d.kind = IdlTypeDef::Kind::kStruct;
    auto fields = json::optionalArray(ty, "fields", field + ".type");
    if (fields) d.fields = parseFields(fields, field + ".type.fields", d.tuple);
  } else if (kind == "enum") {
    d.kind = IdlTypeDef::Kind::kEnum;
    auto variants = json::requireArray(ty, "variants", field + ".type");
    if (variants->size() == 0 || variants->size() > 256)
      refuse(field + ".type.variants", "an enum has 1 to 256 variants");
    for (size_t i = 0; i < variants->size(); ++i) {
      std::string at = field + ".type.variants[" + std::to_string(i) + "]";
      Object v = json::objectAt(variants, i, field + ".type.variants");
      IdlTypeDef::Variant variant{json::requireString(v, "name", at), false, {}};
      if (auto fields = json::optionalArray(v, "fields", at))
        variant.fields = parseFields(fields, at + ".fields", variant.tuple);
      d.variants.push_back(std::move(variant));
    }
  } else if (kind == "alias" || kind == "type") {
    // Legacy {kind: "alias", value: T}; Anchor 0.30 {kind: "type", alias: T}.
    const char* key = kind == "alias" ? "value" : "alias";
    if (!ty->has(key)) refuse(field + ".type", std::string("missing required field ") + key);
    d.kind = IdlTypeDef::Kind::kAlias;
    d.fields.push_back({"", parseType(ty->get(key), field + ".type." + key)});
  } else {
    refuse(field + ".type.kind", "\"" + kind + "\" (expected struct, enum or alias)");
  }
  return d;
}

// Account names in order; legacy IDLs nest groups as {name, accounts: [...]}.
void flattenAccounts(const json::Array& a, const std::string& field,
                     std::vector<std::string>& out) {
  for (size_t i = 0; i < a->size(); ++i) {
    std::string at = field + "[" + std::to_string(i) + "]";
    Object acc = json::objectAt(a, i, field);
    if (auto nested = json::optionalArray(acc, "accounts", at))
      flattenAccounts(nested, at + ".accounts", out);
    else
      out.push_back(json::requireString(acc, "name", at));
  }
}

// Anchor's default discriminator: sha256("global:" + the name in snake_case), first 8 bytes.
Bytes anchorDiscriminator(const std::string& name) {
  std::string snake;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (std::isupper(static_cast<unsigned char>(c))) {
      if (i != 0) snake += '_';
      snake += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      snake += c;
    }
  }
  auto digest = crypto::sha256("global:" + snake);
  return Bytes(digest.begin(), digest.begin() + 8);
}

void forEachDefined(const IdlType& t, const std::function<void(const std::string&)>& visit) {
  if (t.kind == Kind::kDefined) visit(t.defined);
  for (const auto& item : t.items) forEachDefined(item, visit);
}
void forEachDefined(const IdlTypeDef& d, const std::function<void(const std::string&)>& visit) {
  for (const auto& f : d.fields) forEachDefined(f.type, visit);
  for (const auto& v : d.variants)
    for (const auto& f : v.fields) forEachDefined(f.type, visit);
}

// Every defined name resolves, and no type contains itself (its value would have no end).
void checkReferences(const SolanaIdl& idl, const std::string& field) {
  std::map<std::string, int> state;  // 1: on the current path, 2: done
  std::function<void(const std::string&, const std::string&)> visit = [&](const std::string& name,
                                                                          const std::string& from) {
    auto it = idl.types.find(name);
    if (it == idl.types.end())
      refuse(field, from + " names type \"" + name + "\", which is not in types");
    if (state[name] == 2) return;
    if (state[name] == 1) refuse(field + ".types", "type \"" + name + "\" contains itself");
    state[name] = 1;
    forEachDefined(it->second, [&](const std::string& n) { visit(n, "type \"" + name + "\""); });
    state[name] = 2;
  };
  for (const auto& [name, def] : idl.types) visit(name, "types");
  for (const auto& ins : idl.instructions)
    for (const auto& a : ins.args)
      forEachDefined(a.type, [&](const std::string& n) {
        visit(n, "instruction \"" + ins.name + "\" argument \"" + a.name + "\"");
      });
}

// Borsh reading into policy facts.
class Reader {
 public:
  Reader(const SolanaIdl& idl, const Bytes& data, size_t offset)
      : idl_(idl), data_(data), at_(offset) {}

  bool done() const { return at_ == data_.size(); }

  Var value(const IdlType& t, size_t depth) {
    if (depth > kMaxDepth || ++values_ > kMaxDecodedValues)
      throw std::runtime_error("IDL data nests or repeats past the decoding budget");
    switch (t.kind) {
      case Kind::kBool: {
        uint8_t b = take(1)[0];
        if (b > 1) throw std::runtime_error("a bool byte is not 0 or 1");
        return b == 1;
      }
      case Kind::kU8:
        return static_cast<int>(unsignedLe(1));
      case Kind::kU16:
        return static_cast<int>(unsignedLe(2));
      case Kind::kU32:
        return static_cast<int64_t>(unsignedLe(4));
      case Kind::kU64:
        return uintFact(decimal(unsignedLe(8), false));
      case Kind::kU128:
        return uintFact(decimal(unsignedLe(16), false));
      case Kind::kI8:
        return static_cast<int>(static_cast<int8_t>(unsignedLe(1)));
      case Kind::kI16:
        return static_cast<int>(static_cast<int16_t>(unsignedLe(2)));
      case Kind::kI32:
        return static_cast<int64_t>(static_cast<int32_t>(unsignedLe(4)));
      case Kind::kI64:
        return intFact(decimal(signExtend(unsignedLe(8), 64), true));
      case Kind::kI128:
        return intFact(decimal(unsignedLe(16), true));
      case Kind::kF32:
        return floatText(4);
      case Kind::kF64:
        return floatText(8);
      case Kind::kBytes:
        return toHex(take(length()));
      case Kind::kString:
        return utf8(take(length()));
      case Kind::kPublicKey:
        return base58Encode(take(32));
      case Kind::kVec:
      case Kind::kSet:
        return list(t.items[0], length(), depth);
      case Kind::kArray:
        return list(t.items[0], t.length, depth);
      case Kind::kTuple: {
        json::Array out = json::array();
        for (const auto& item : t.items) out->add(value(item, depth + 1));
        return out;
      }
      // None has no value in the policy language: it reads as '' (as Turnkey shows inactive
      // optional fields), so a comparison with a number errors and fails closed.
      case Kind::kOption:
        return tag(1) ? value(t.items[0], depth + 1) : Var(std::string());
      case Kind::kCOption:
        return tag(4) ? value(t.items[0], depth + 1) : Var(std::string());
      case Kind::kMap: {
        Object map = json::object();
        for (size_t n = length(), i = 0; i < n; ++i) {
          Var key = value(t.items[0], depth + 1);
          map->set(keyText(key), value(t.items[1], depth + 1));
        }
        return mapFact(map);
      }
      case Kind::kDefined:
        return defined(idl_.types.at(t.defined), depth);
    }
    throw std::logic_error("unhandled IDL type");
  }

  Object fields(const std::vector<IdlField>& fields, size_t depth) {
    Object map = json::object();
    for (const auto& f : fields) map->set(f.name, value(f.type, depth + 1));
    return map;
  }

 private:
  Bytes take(size_t n) {
    if (n > data_.size() - at_) throw std::runtime_error("instruction data ends early");
    Bytes out(data_.begin() + static_cast<long>(at_), data_.begin() + static_cast<long>(at_ + n));
    at_ += n;
    return out;
  }
  unsigned __int128 unsignedLe(size_t n) {
    Bytes b = take(n);
    unsigned __int128 v = 0;
    for (size_t i = n; i-- > 0;) v = (v << 8) | b[i];
    return v;
  }
  static unsigned __int128 signExtend(unsigned __int128 v, int bits) {
    if (bits < 128 && (v >> (bits - 1)) & 1) v |= ~static_cast<unsigned __int128>(0) << bits;
    return v;
  }
  static std::string decimal(unsigned __int128 v, bool isSigned) {
    bool negative = isSigned && static_cast<__int128>(v) < 0;
    if (negative) v = ~v + 1;
    std::string out;
    do {
      out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
      v /= 10;
    } while (v != 0);
    return negative ? "-" + out : out;
  }
  size_t length() { return static_cast<size_t>(unsignedLe(4)); }
  bool tag(size_t size) {
    auto v = unsignedLe(size);
    if (v > 1) throw std::runtime_error("an option tag is not 0 or 1");
    return v == 1;
  }
  // The language has no floats: they read as their shortest decimal text.
  std::string floatText(size_t size) {
    Bytes b = take(size);
    char buf[64];
    std::to_chars_result r;
    if (size == 4) {
      float f;
      std::memcpy(&f, b.data(), 4);
      r = std::to_chars(buf, buf + sizeof buf, f);
    } else {
      double d;
      std::memcpy(&d, b.data(), 8);
      r = std::to_chars(buf, buf + sizeof buf, d);
    }
    return std::string(buf, r.ptr);
  }
  static std::string utf8(const Bytes& b) {
    for (size_t i = 0; i < b.size();) {
      uint8_t c = b[i];
      size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
      if (n == 0 || i + n > b.size()) throw std::runtime_error("a string is not UTF-8");
      for (size_t k = 1; k < n; ++k)
        if ((b[i + k] >> 6) != 2) throw std::runtime_error("a string is not UTF-8");
      i += n;
    }
    return std::string(b.begin(), b.end());
  }
  static std::string keyText(const Var& key) {
    if (key.isString()) return key.extract<std::string>();
    if (key.isInteger()) return key.convert<std::string>();
    if (isObject(key)) {  // a $uint / $int marker
      Object o = key.extract<Object>();
      for (const char* marker : {"$uint", "$int"})
        if (o->has(marker)) return o->getValue<std::string>(marker);
    }
    throw std::runtime_error("a map key that is not a string or an integer");
  }
  json::Array list(const IdlType& item, size_t n, size_t depth) {
    if (n > kMaxDecodedValues) throw std::runtime_error("a length past the decoding budget");
    json::Array out = json::array();
    for (size_t i = 0; i < n; ++i) out->add(value(item, depth + 1));
    return out;
  }
  // Structs are maps by field name (lists when tuple structs); an enum is a one-entry map from
  // its variant's name to the variant's fields (an empty map for a unit variant).
  Var defined(const IdlTypeDef& d, size_t depth) {
    switch (d.kind) {
      case IdlTypeDef::Kind::kAlias:
        return value(d.fields[0].type, depth + 1);
      case IdlTypeDef::Kind::kStruct:
        return fieldsOf(d.tuple, d.fields, depth);
      case IdlTypeDef::Kind::kEnum: {
        uint8_t index = take(1)[0];
        if (index >= d.variants.size()) throw std::runtime_error("an enum variant out of range");
        const auto& v = d.variants[index];
        Object map = json::object();
        map->set(v.name, fieldsOf(v.tuple, v.fields, depth));
        return mapFact(map);
      }
    }
    throw std::logic_error("unhandled IDL type definition");
  }
  Var fieldsOf(bool tuple, const std::vector<IdlField>& list, size_t depth) {
    if (!tuple) return mapFact(fields(list, depth));
    json::Array out = json::array();
    for (const auto& f : list) out->add(value(f.type, depth + 1));
    return out;
  }

  const SolanaIdl& idl_;
  const Bytes& data_;
  size_t at_;
  size_t values_ = 0;
};

}  // namespace

SolanaIdl parseSolanaIdl(const std::string& text, const std::string& field) {
  Object o = json::parseObject(text, field);
  SolanaIdl idl;
  auto types = json::requireArray(o, "types", field);
  for (size_t i = 0; i < types->size(); ++i) {
    std::string at = field + ".types[" + std::to_string(i) + "]";
    Object t = json::objectAt(types, i, field + ".types");
    std::string name = json::requireString(t, "name", at);
    if (idl.types.count(name)) refuse(at + ".name", "type \"" + name + "\" is defined twice");
    idl.types.emplace(name, parseTypeDef(t, at));
  }
  auto instructions = json::requireArray(o, "instructions", field);
  std::set<Bytes> discriminators;
  for (size_t i = 0; i < instructions->size(); ++i) {
    std::string at = field + ".instructions[" + std::to_string(i) + "]";
    Object ins = json::objectAt(instructions, i, field + ".instructions");
    IdlInstruction out;
    out.name = json::requireString(ins, "name", at);
    if (auto disc = json::optionalArray(ins, "discriminator", at)) {
      if (disc->size() == 0 || disc->size() > 32)
        refuse(at + ".discriminator", "must have 1 to 32 bytes");
      for (size_t k = 0; k < disc->size(); ++k) {
        const Var& b = disc->get(static_cast<unsigned>(k));
        if (!b.isInteger() || b.isString() || b.convert<int64_t>() < 0 ||
            b.convert<int64_t>() > 255)
          refuse(at + ".discriminator[" + std::to_string(k) + "]", "must be a byte");
        out.discriminator.push_back(b.convert<uint8_t>());
      }
    } else {
      out.discriminator = anchorDiscriminator(out.name);
    }
    if (!discriminators.insert(out.discriminator).second)
      refuse(at + ".discriminator", "instruction \"" + out.name +
                                        "\" repeats another's discriminator " +
                                        toHex(out.discriminator));
    if (auto accounts = json::optionalArray(ins, "accounts", at))
      flattenAccounts(accounts, at + ".accounts", out.accounts);
    if (auto args = json::optionalArray(ins, "args", at)) {
      bool tuple = false;
      out.args = parseFields(args, at + ".args", tuple);
      if (tuple && !out.args.empty()) refuse(at + ".args", "arguments need names");
    }
    idl.instructions.push_back(std::move(out));
  }
  checkReferences(idl, field);
  return idl;
}

Object decodeSolanaInstruction(const SolanaIdl& idl, const Bytes& data,
                               const std::vector<std::string>& accounts) {
  for (const auto& ins : idl.instructions) {
    const Bytes& d = ins.discriminator;
    if (data.size() < d.size() || !std::equal(d.begin(), d.end(), data.begin())) continue;
    if (accounts.size() < ins.accounts.size()) return nullptr;
    try {
      Reader reader(idl, data, d.size());
      Object args = reader.fields(ins.args, 0);
      if (!reader.done()) return nullptr;  // bytes past the arguments: not this instruction's
      Object named = json::object();
      for (size_t i = 0; i < ins.accounts.size(); ++i) named->set(ins.accounts[i], accounts[i]);
      Object out = json::object();
      out->set("instruction_name", ins.name);
      out->set("discriminator", toHex(d));
      out->set("named_accounts", mapFact(named));
      out->set("program_call_args", mapFact(args));
      return out;
    } catch (const std::exception&) {
      return nullptr;  // does not decode: no parsed data, so policies reading it error
    }
  }
  return nullptr;
}

}  // namespace signing
