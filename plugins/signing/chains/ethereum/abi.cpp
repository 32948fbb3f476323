#include "chains/ethereum/abi.hpp"

#include <Poco/JSON/Parser.h>

#include <boost/multiprecision/cpp_int.hpp>

#include "signet/crypto.hpp"
#include "signet/error.hpp"
#include "signet/plugin.hpp"

namespace signing {

using namespace signet;
using json::Object;
using Kind = AbiType::Kind;

namespace {
// Tuples and arrays nest at most this deep; real contracts stay far below.
constexpr int kMaxTypeDepth = 8;

AbiType parseType(const Object& param, const std::string& where, int depth);

std::vector<AbiParam> parseParams(const Poco::JSON::Array::Ptr& list, const std::string& where,
                                  int depth) {
  std::vector<AbiParam> out;
  if (!list) return out;
  for (size_t i = 0; i < list->size(); ++i) {
    std::string at = where + "[" + std::to_string(i) + "]";
    Object p = list->getObject(static_cast<unsigned>(i));
    if (!p) throw invalidArgument("invalid field " + at + ": not an object");
    out.push_back({p->optValue<std::string>("name", ""), parseType(p, at, depth)});
  }
  return out;
}

std::optional<int> digitsAfter(const std::string& t, size_t prefix) {
  if (t.size() == prefix) return std::nullopt;
  int n = 0;
  for (size_t i = prefix; i < t.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(t[i])) || n > 1000) return -1;
    n = n * 10 + (t[i] - '0');
  }
  return n;
}

AbiType elementary(const std::string& t, const std::string& where) {
  auto bad = [&]() -> AbiType {
    throw invalidArgument("invalid field " + where + ".type: \"" + t +
                          "\" is not an ABI type this gateway decodes");
  };
  AbiType a;
  a.canonical = t;
  if (t == "address") {
    a.kind = Kind::kAddress;
  } else if (t == "bool") {
    a.kind = Kind::kBool;
  } else if (t == "string") {
    a.kind = Kind::kString;
  } else if (t == "bytes") {
    a.kind = Kind::kBytes;
  } else if (t == "function") {
    a.kind = Kind::kFixedBytes;  // an address and a selector, 24 bytes
    a.size = 24;
  } else if (t.rfind("uint", 0) == 0 || t.rfind("int", 0) == 0) {
    bool isUnsigned = t[0] == 'u';
    auto bits = digitsAfter(t, isUnsigned ? 4 : 3);
    int b = bits.value_or(256);
    if (b <= 0 || b > 256 || b % 8 != 0) return bad();
    a.kind = isUnsigned ? Kind::kUint : Kind::kInt;
    a.size = b;
    a.canonical = (isUnsigned ? "uint" : "int") + std::to_string(b);
  } else if (t.rfind("bytes", 0) == 0) {
    auto n = digitsAfter(t, 5);
    if (!n || *n <= 0 || *n > 32) return bad();
    a.kind = Kind::kFixedBytes;
    a.size = *n;
  } else {
    return bad();
  }
  return a;
}

AbiType parseTypeString(const std::string& t, const Object& param, const std::string& where,
                        int depth) {
  if (depth > kMaxTypeDepth)
    throw invalidArgument("invalid field " + where + ": types nested deeper than " +
                          std::to_string(kMaxTypeDepth));
  if (!t.empty() && t.back() == ']') {
    size_t open = t.rfind('[');
    if (open == std::string::npos) return elementary(t, where);
    AbiType a;
    a.kind = Kind::kArray;
    std::string len = t.substr(open + 1, t.size() - open - 2);
    if (!len.empty()) {
      auto n = digitsAfter(len, 0);
      if (!n || *n <= 0)
        throw invalidArgument("invalid field " + where + ".type: bad array length in \"" + t +
                              "\"");
      a.length = static_cast<size_t>(*n);
    }
    a.element =
        std::make_shared<AbiType>(parseTypeString(t.substr(0, open), param, where, depth + 1));
    a.canonical = a.element->canonical + t.substr(open);
    return a;
  }
  if (t == "tuple") {
    AbiType a;
    a.kind = Kind::kTuple;
    a.components = parseParams(param->getArray("components"), where + ".components", depth + 1);
    a.canonical = "(";
    for (size_t i = 0; i < a.components.size(); ++i)
      a.canonical += (i ? "," : "") + a.components[i].type.canonical;
    a.canonical += ")";
    return a;
  }
  return elementary(t, where);
}

AbiType parseType(const Object& param, const std::string& where, int depth) {
  if (!param->has("type") || !param->get("type").isString())
    throw invalidArgument("invalid field " + where + ".type: missing");
  return parseTypeString(param->getValue<std::string>("type"), param, where, depth);
}

// ---- decoding ----

using Integer = boost::multiprecision::cpp_int;

bool isDynamic(const AbiType& t) {
  switch (t.kind) {
    case Kind::kBytes:
    case Kind::kString:
      return true;
    case Kind::kArray:
      return !t.length || isDynamic(*t.element);
    case Kind::kTuple:
      for (const auto& c : t.components)
        if (isDynamic(c.type)) return true;
      return false;
    default:
      return false;
  }
}

constexpr size_t kHuge = SIZE_MAX / 4;  // saturates: such a head never fits the data

// Bytes a type takes in its enclosing head (saturating: nested fixed arrays multiply).
size_t headSize(const AbiType& t) {
  if (isDynamic(t)) return 32;
  if (t.kind == Kind::kArray) {
    size_t element = headSize(*t.element);
    return *t.length > kHuge / element ? kHuge : *t.length * element;
  }
  if (t.kind == Kind::kTuple) {
    size_t n = 0;
    for (const auto& c : t.components) n = std::min(kHuge, n + headSize(c.type));
    return n;
  }
  return 32;
}

struct Malformed {};

class Decoder {
 public:
  explicit Decoder(const Bytes& data) : d_(data), budget_(std::max<size_t>(1024, data.size())) {}

  Poco::Dynamic::Var value(const AbiType& t, size_t pos) {
    if (budget_-- == 0) throw Malformed{};  // offsets that alias blow up otherwise
    switch (t.kind) {
      case Kind::kUint:
      case Kind::kInt:
        return integer(t, pos);
      case Kind::kAddress: {
        const uint8_t* w = word(pos);
        for (int i = 0; i < 12; ++i)
          if (w[i]) throw Malformed{};
        return "0x" + toHex(w + 12, 20);
      }
      case Kind::kBool: {
        const uint8_t* w = word(pos);
        for (int i = 0; i < 31; ++i)
          if (w[i]) throw Malformed{};
        if (w[31] > 1) throw Malformed{};
        return w[31] == 1;
      }
      case Kind::kFixedBytes: {
        const uint8_t* w = word(pos);
        for (int i = t.size; i < 32; ++i)
          if (w[i]) throw Malformed{};
        return "0x" + toHex(w, static_cast<size_t>(t.size));
      }
      case Kind::kBytes:
      case Kind::kString: {
        size_t len = smallNumber(pos);
        if (len > d_.size() - pos - 32) throw Malformed{};
        const uint8_t* p = d_.data() + pos + 32;
        size_t padded = (len + 31) / 32 * 32;
        if (padded > d_.size() - pos - 32) throw Malformed{};
        for (size_t i = len; i < padded; ++i)
          if (p[i]) throw Malformed{};
        if (t.kind == Kind::kBytes) return "0x" + toHex(p, len);
        return std::string(reinterpret_cast<const char*>(p), len);
      }
      case Kind::kArray: {
        size_t n = t.length ? *t.length : smallNumber(pos);
        size_t start = t.length ? pos : pos + 32;
        // Each element takes at least one word, so a length past the data is a lie.
        if (n > (d_.size() - std::min(d_.size(), start)) / 32) throw Malformed{};
        std::vector<const AbiType*> types(n, t.element.get());
        return sequence(types, start);
      }
      case Kind::kTuple: {
        std::vector<const AbiType*> types;
        for (const auto& c : t.components) types.push_back(&c.type);
        return sequence(types, pos);
      }
    }
    throw Malformed{};
  }

  // Heads at `start`, each dynamic one an offset from `start` to its tail.
  json::Array sequence(const std::vector<const AbiType*>& types, size_t start) {
    json::Array out = json::array();
    size_t head = start;
    for (const AbiType* t : types) {
      if (isDynamic(*t)) {
        size_t offset = smallNumber(head);
        if (offset > d_.size() - start) throw Malformed{};
        out->add(value(*t, start + offset));
      } else {
        out->add(value(*t, head));
      }
      head = std::min(kHuge, head + headSize(*t));
    }
    return out;
  }

 private:
  const uint8_t* word(size_t pos) const {
    if (pos > d_.size() || d_.size() - pos < 32) throw Malformed{};
    return d_.data() + pos;
  }
  // A length or offset: it must fit the data, so anything past 32 bits is malformed.
  size_t smallNumber(size_t pos) const {
    const uint8_t* w = word(pos);
    for (int i = 0; i < 28; ++i)
      if (w[i]) throw Malformed{};
    return (size_t{w[28]} << 24) | (size_t{w[29]} << 16) | (size_t{w[30]} << 8) | w[31];
  }
  Poco::Dynamic::Var integer(const AbiType& t, size_t pos) const {
    const uint8_t* w = word(pos);
    Integer v;
    boost::multiprecision::import_bits(v, w, w + 32);
    Integer limit = Integer(1) << t.size;
    if (t.kind == Kind::kInt) {
      Integer half = limit >> 1;
      if (w[0] & 0x80) v -= Integer(1) << 256;
      if (v >= half || v < -half) throw Malformed{};  // not sign-extended
    } else if (v >= limit) {
      throw Malformed{};
    }
    return t.kind == Kind::kInt ? intFact(v.str()) : uintFact(v.str());
  }

  const Bytes& d_;
  size_t budget_;
};
}  // namespace

std::vector<AbiFunction> parseAbi(const std::string& abiJson, const std::string& field) {
  Poco::Dynamic::Var parsed;
  try {
    Poco::JSON::Parser parser;
    parsed = parser.parse(abiJson);
  } catch (const Poco::Exception& e) {
    throw invalidArgument("invalid field " + field + ": not JSON: " + e.message());
  }
  if (parsed.type() != typeid(Poco::JSON::Array::Ptr))
    throw invalidArgument("invalid field " + field + ": an Ethereum ABI is a JSON array");
  auto entries = parsed.extract<Poco::JSON::Array::Ptr>();
  std::vector<AbiFunction> out;
  for (size_t i = 0; i < entries->size(); ++i) {
    std::string at = field + "[" + std::to_string(i) + "]";
    Object e = entries->getObject(static_cast<unsigned>(i));
    if (!e) throw invalidArgument("invalid field " + at + ": not an object");
    // Entries without a type are functions (the ABI specification's default).
    if (e->optValue<std::string>("type", "function") != "function") continue;
    AbiFunction f;
    f.name = e->optValue<std::string>("name", "");
    if (f.name.empty())
      throw invalidArgument("invalid field " + at + ".name: a function needs one");
    f.inputs = parseParams(e->getArray("inputs"), at + ".inputs", 0);
    f.signature = f.name + "(";
    for (size_t k = 0; k < f.inputs.size(); ++k)
      f.signature += (k ? "," : "") + f.inputs[k].type.canonical;
    f.signature += ")";
    auto h = crypto::keccak256(f.signature);
    std::copy(h.begin(), h.begin() + 4, f.selector.begin());
    out.push_back(std::move(f));
  }
  return out;
}

std::optional<DecodedCall> decodeCall(const std::vector<AbiFunction>& abi, const Bytes& calldata) {
  if (calldata.size() < 4) return std::nullopt;
  for (const auto& f : abi) {
    if (!std::equal(f.selector.begin(), f.selector.end(), calldata.begin())) continue;
    Bytes body(calldata.begin() + 4, calldata.end());
    Decoder d(body);
    std::vector<const AbiType*> types;
    for (const auto& p : f.inputs) types.push_back(&p.type);
    json::Array values;
    try {
      values = d.sequence(types, 0);
    } catch (const Malformed&) {
      return std::nullopt;
    }
    Object named = json::object();
    for (size_t i = 0; i < f.inputs.size(); ++i)
      named->set(f.inputs[i].name.empty() ? std::to_string(i) : f.inputs[i].name,
                 values->get(static_cast<unsigned>(i)));
    return DecodedCall{f.name, "0x" + toHex(f.selector.data(), 4), mapFact(named)};
  }
  return std::nullopt;
}

}  // namespace signing
