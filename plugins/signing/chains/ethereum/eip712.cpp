#include "chains/ethereum/eip712.hpp"

#include <boost/multiprecision/cpp_int.hpp>

#include <map>
#include <set>

#include "signet/error.hpp"

namespace signing {

using namespace signet;
using Integer = boost::multiprecision::cpp_int;

namespace {
struct Field {
  std::string name, type;
};
using Types = std::map<std::string, std::vector<Field>>;

[[noreturn]] void bad(const std::string& why) {
  throw invalidArgument("invalid EIP-712 typed data in parameters.payload: " + why);
}

Integer integerOf(const Poco::Dynamic::Var& v, const std::string& where) {
  try {
    if (v.isString()) {
      std::string s = v.convert<std::string>();
      bool negative = !s.empty() && s[0] == '-';
      std::string digits = negative ? s.substr(1) : s;
      Integer out;
      if (digits.rfind("0x", 0) == 0 || digits.rfind("0X", 0) == 0) {
        if (digits.size() == 2) bad(where + " is not an integer");
        for (char c : digits.substr(2)) {
          int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                  : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
                  : (c >= 'A' && c <= 'F')                    ? c - 'A' + 10
                                                              : -1;
          if (d < 0) bad(where + " is not an integer");
          out = out * 16 + d;
        }
      } else {
        if (digits.empty()) bad(where + " is not an integer");
        for (char c : digits) {
          if (!std::isdigit(static_cast<unsigned char>(c))) bad(where + " is not an integer");
          out = out * 10 + (c - '0');
        }
      }
      return negative ? Integer(-out) : out;
    }
    if (v.isInteger()) return Integer(v.convert<int64_t>());
  } catch (const Error&) {
    throw;
  } catch (const std::exception&) {
  }
  bad(where + " is not an integer");
}

Bytes word(const Integer& value) {
  // Two's complement in 256 bits.
  Integer v = value;
  if (v < 0) v += Integer(1) << 256;
  Bytes out(32, 0);
  for (int i = 31; i >= 0 && v > 0; --i) {
    out[static_cast<size_t>(i)] = static_cast<uint8_t>(v & 0xff);
    v >>= 8;
  }
  return out;
}

Bytes hexBytes(const Poco::Dynamic::Var& v, const std::string& where) {
  if (!v.isString()) bad(where + " must be a hex string");
  auto b = fromHex(v.convert<std::string>());
  if (!b) bad(where + " is not hex");
  return *b;
}

class Encoder {
 public:
  explicit Encoder(Types types) : types_(std::move(types)) {}

  crypto::Digest hashStruct(const std::string& type, const json::Object& data,
                            const std::string& where) {
    Bytes enc;
    auto typeHash = crypto::keccak256(encodeType(type));
    enc.insert(enc.end(), typeHash.begin(), typeHash.end());
    for (const auto& f : types_.at(type)) {
      if (!data->has(f.name)) bad(where + "." + f.name + " is missing");
      Bytes w = encodeValue(f.type, data->get(f.name), where + "." + f.name);
      enc.insert(enc.end(), w.begin(), w.end());
    }
    return crypto::keccak256(enc.data(), enc.size());
  }

 private:
  static std::string baseType(const std::string& type) {
    auto bracket = type.find('[');
    return bracket == std::string::npos ? type : type.substr(0, bracket);
  }

  void dependencies(const std::string& type, std::set<std::string>& found) {
    if (!types_.count(type) || found.count(type)) return;
    found.insert(type);
    for (const auto& f : types_.at(type)) dependencies(baseType(f.type), found);
  }

  std::string encodeType(const std::string& primary) {
    std::set<std::string> deps;
    dependencies(primary, deps);
    deps.erase(primary);
    std::string out;
    auto one = [&](const std::string& t) {
      out += t + "(";
      bool first = true;
      for (const auto& f : types_.at(t)) {
        out += (first ? "" : ",") + f.type + " " + f.name;
        first = false;
      }
      out += ")";
    };
    one(primary);
    for (const auto& d : deps) one(d);  // std::set: sorted by name, as EIP-712 requires
    return out;
  }

  Bytes encodeValue(const std::string& type, const Poco::Dynamic::Var& v,
                    const std::string& where) {
    if (type.size() > 2 && type.back() == ']') {
      auto open = type.rfind('[');
      std::string inner = type.substr(0, open);
      Poco::JSON::Array::Ptr list;
      try {
        list = v.extract<Poco::JSON::Array::Ptr>();
      } catch (...) {
        bad(where + " must be an array");
      }
      std::string size = type.substr(open + 1, type.size() - open - 2);
      if (!size.empty() && std::to_string(list->size()) != size)
        bad(where + " must have " + size + " items");
      Bytes enc;
      for (size_t i = 0; i < list->size(); ++i) {
        Bytes w = encodeValue(inner, list->get(static_cast<unsigned>(i)),
                              where + "[" + std::to_string(i) + "]");
        enc.insert(enc.end(), w.begin(), w.end());
      }
      auto h = crypto::keccak256(enc.data(), enc.size());
      return Bytes(h.begin(), h.end());
    }
    if (types_.count(type)) {
      json::Object o;
      try {
        o = v.extract<Poco::JSON::Object::Ptr>();
      } catch (...) {
        bad(where + " must be an object of type " + type);
      }
      auto h = hashStruct(type, o, where);
      return Bytes(h.begin(), h.end());
    }
    if (type == "string") {
      if (!v.isString()) bad(where + " must be a string");
      auto h = crypto::keccak256(v.convert<std::string>());
      return Bytes(h.begin(), h.end());
    }
    if (type == "bytes") {
      Bytes b = hexBytes(v, where);
      auto h = crypto::keccak256(b.data(), b.size());
      return Bytes(h.begin(), h.end());
    }
    if (type == "bool") {
      bool b =
          v.isBoolean() ? v.convert<bool>() : (v.isString() && v.convert<std::string>() == "true");
      return word(b ? 1 : 0);
    }
    if (type == "address") {
      Bytes a = hexBytes(v, where);
      if (a.size() != 20) bad(where + " is not a 20-byte address");
      Bytes out(12, 0);
      out.insert(out.end(), a.begin(), a.end());
      return out;
    }
    if (type.rfind("bytes", 0) == 0) {
      Bytes b = hexBytes(v, where);
      int n = std::stoi(type.substr(5));
      if (n < 1 || n > 32 || static_cast<int>(b.size()) != n)
        bad(where + " must be " + type.substr(5) + " bytes");
      b.resize(32, 0);
      return b;
    }
    if (type.rfind("uint", 0) == 0 || type.rfind("int", 0) == 0) {
      Integer value = integerOf(v, where);
      bool isSigned = type[0] == 'i';
      int bits =
          std::stoi(type.substr(isSigned ? 3 : 4).empty() ? "256" : type.substr(isSigned ? 3 : 4));
      Integer limit = Integer(1) << (isSigned ? bits - 1 : bits);
      if ((!isSigned && (value < 0 || value >= limit)) ||
          (isSigned && (value < -limit || value >= limit)))
        bad(where + " is out of range for " + type);
      return word(value);
    }
    bad("unknown type " + type + " at " + where);
  }

  Types types_;
};
}  // namespace

crypto::Digest eip712Digest(const json::Object& typed) {
  auto typesJson = json::requireObject(typed, "types", "parameters.payload");
  std::string primary = json::requireString(typed, "primaryType", "parameters.payload");
  auto domain = json::optionalObject(typed, "domain", "parameters.payload");
  if (!domain) domain = json::object();
  Types types;
  for (const auto& name : typesJson->getNames()) {
    auto list = json::requireArray(typesJson, name, "parameters.payload.types");
    for (size_t i = 0; i < list->size(); ++i) {
      auto f = json::objectAt(list, i, "parameters.payload.types." + name);
      types[name].push_back({json::requireString(f, "name", "types." + name),
                             json::requireString(f, "type", "types." + name)});
    }
  }
  if (!types.count("EIP712Domain")) {
    static const std::vector<Field> kDomainFields = {{"name", "string"},
                                                     {"version", "string"},
                                                     {"chainId", "uint256"},
                                                     {"verifyingContract", "address"},
                                                     {"salt", "bytes32"}};
    auto& domainType = types["EIP712Domain"];
    for (const auto& f : kDomainFields)
      if (domain->has(f.name)) domainType.push_back(f);
  }
  if (!types.count(primary)) bad("primaryType " + primary + " is not in types");
  Encoder encoder(types);
  auto separator = encoder.hashStruct("EIP712Domain", domain, "domain");
  Bytes pre{0x19, 0x01};
  pre.insert(pre.end(), separator.begin(), separator.end());
  if (primary != "EIP712Domain") {
    auto message = json::requireObject(typed, "message", "parameters.payload");
    auto h = encoder.hashStruct(primary, message, "message");
    pre.insert(pre.end(), h.begin(), h.end());
  }
  return crypto::keccak256(pre.data(), pre.size());
}

namespace {
// RLP of a non-negative integer (minimal big-endian; zero is the empty string).
Bytes rlpInteger(const Integer& v) {
  Bytes raw;
  for (Integer x = v; x > 0; x >>= 8) raw.insert(raw.begin(), static_cast<uint8_t>(x & 0xff));
  if (raw.size() == 1 && raw[0] < 0x80) return raw;
  Bytes out{static_cast<uint8_t>(0x80 + raw.size())};
  out.insert(out.end(), raw.begin(), raw.end());
  return out;
}
}  // namespace

crypto::Digest eip7702AuthorizationDigest(const json::Object& a) {
  const std::string where = "parameters.payload";
  Integer chainId = integerOf(a->get("chainId"), where + ".chainId");
  Integer nonce = integerOf(a->get("nonce"), where + ".nonce");
  auto address = fromHex(json::requireString(a, "address", where));
  if (!address || address->size() != 20)
    throw invalidArgument("invalid field " + where + ".address: not a 20-byte address");
  if (chainId < 0 || nonce < 0)
    throw invalidArgument("invalid field " + where + ": negative value");
  Bytes items = rlpInteger(chainId);
  items.push_back(0x80 + 20);
  items.insert(items.end(), address->begin(), address->end());
  Bytes n = rlpInteger(nonce);
  items.insert(items.end(), n.begin(), n.end());
  Bytes msg{0x05};
  if (items.size() < 56) {
    msg.push_back(static_cast<uint8_t>(0xc0 + items.size()));
  } else {
    msg.push_back(0xf8);
    msg.push_back(static_cast<uint8_t>(items.size()));
  }
  msg.insert(msg.end(), items.begin(), items.end());
  return crypto::keccak256(msg.data(), msg.size());
}

}  // namespace signing
