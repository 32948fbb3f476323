#include "policy/evaluator.hpp"

#include <algorithm>
#include <boost/container/small_vector.hpp>
#include <cstring>
#include <ctime>
#include <optional>
#include <vector>

#include "policy/cron_span.hpp"
#include "policy/shape.hpp"

namespace signet::policy {

namespace {

// Lambda variables point into the list being iterated, which the caller keeps alive.
// all, any and contains give a bool.
bool isBoolMethod(const Node& n) {
  return n.function == Node::Function::kAll || n.function == Node::Function::kAny ||
         n.function == Node::Function::kContains;
}

// The items lambda variables stand for, outermost first (Node::slot indexes it). Inline
// storage: a heap allocation per evaluation cost more than the lambdas themselves.
using Scope = boost::container::small_vector<const Value*, 8>;

// An operand is either a reference into existing values (facts, literals, list items) or a
// value computed here; reading facts never copies them.
// (Constructors rather than member initializers: GCC zero-fills the whole object, Value
// storage included, for `Operand o;` with initializers, which dominated evaluation time.)
struct Operand {
  Operand() : ref(nullptr) {}
  explicit Operand(const Value* r) : ref(r) {}
  explicit Operand(Value&& v) : ref(nullptr), owned(std::move(v)) {}
  const Value* ref;
  std::optional<Value> owned;  // constructed only for computed values
  const Value& get() const { return ref ? *ref : *owned; }
};

// A field by name. Facts are small structs (a handful of keys): a scan that compares lengths
// before bytes beats the tree walk, whose every step is a memcmp. Larger maps use the tree.
const Value* findField(const Fields& fields, const std::string& name) {
  if (fields.size() <= 12) {
    for (const auto& [key, value] : fields)
      if (key.size() == name.size() && std::memcmp(key.data(), name.data(), name.size()) == 0)
        return &value;
    return nullptr;
  }
  auto it = fields.find(name);
  return it == fields.end() ? nullptr : &it->second;
}

[[noreturn]] void error(const Node& n, const std::string& message) {
  throw EvaluationError(n.position, message);
}

bool isDecimal(const std::string& s) {
  size_t i = s.size() > 1 && s[0] == '-' ? 1 : 0;
  return i < s.size() && s.size() - i <= 80 &&
         std::all_of(s.begin() + static_cast<long>(i), s.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// A number, or a numeric string compared with a number (the documented examples compare
// chain_id with '1'), else nullopt.
std::optional<Integer> numeric(const Value& v) {
  if (v.isNumber()) return v.number;
  if (v.kind == Value::Kind::kString && isDecimal(v.text)) return parseDecimal(v.text);
  return std::nullopt;
}

bool equals(const Node& at, const Value& a, const Value& b) {
  if (a.isNumber() && b.isNumber()) return a.number == b.number;  // no copies on the hot path
  if ((a.isNumber() || b.isNumber())) {
    auto x = numeric(a), y = numeric(b);
    if (x && y) return *x == *y;
    if (a.isNumber() && b.isNumber()) return false;
    error(at, std::string("cannot compare ") + kindName(a.kind) + " " + describe(a) + " with " +
                  kindName(b.kind) + " " + describe(b));
  }
  if (a.kind != b.kind)
    error(at, std::string("cannot compare ") + kindName(a.kind) + " with " + kindName(b.kind));
  switch (a.kind) {
    case Value::Kind::kBool:
      return a.boolean == b.boolean;
    case Value::Kind::kString:
      return a.text == b.text;
    case Value::Kind::kTimestamp:
      return a.number == b.number;
    case Value::Kind::kList:
      if (a.list->size() != b.list->size()) return false;
      for (size_t i = 0; i < a.list->size(); ++i)
        if (!equals(at, (*a.list)[i], (*b.list)[i])) return false;
      return true;
    default: {
      if (a.fields->size() != b.fields->size()) return false;
      for (const auto& [k, v] : *a.fields) {
        auto it = b.fields->find(k);
        if (it == b.fields->end() || !equals(at, v, it->second)) return false;
      }
      return true;
    }
  }
}

int order(const Node& at, const Value& a, const Value& b) {
  if (a.kind == Value::Kind::kTimestamp && b.kind == Value::Kind::kTimestamp)
    return a.number < b.number ? -1 : (a.number > b.number ? 1 : 0);
  if (a.isNumber() && b.isNumber()) return a.number < b.number ? -1 : (a.number > b.number ? 1 : 0);
  auto x = numeric(a), y = numeric(b);
  if (!x || !y || (!a.isNumber() && !b.isNumber()))
    error(at, std::string("operator ") + at.name + " compares numbers or timestamps, not " +
                  kindName(a.kind) + " and " + kindName(b.kind));
  return *x < *y ? -1 : (*x > *y ? 1 : 0);
}

bool asBool(const Node& at, const Value& v, const char* what) {
  if (v.kind != Value::Kind::kBool)
    error(at, std::string(what) + " needs a bool, got " + kindName(v.kind) + " " + describe(v));
  return v.boolean;
}

size_t asIndex(const Node& at, const Value& v, size_t size, bool allowEnd) {
  if (!v.isNumber()) error(at, std::string("an index must be an int, got ") + kindName(v.kind));
  if (v.number < 0 || v.number > Integer(size) || (!allowEnd && v.number == Integer(size)))
    error(at, "index " + v.number.str() + " is out of range for length " + std::to_string(size));
  return static_cast<size_t>(v.number);
}

class Evaluator {
 public:
  Evaluator(const Fields& roots, Memo* memo) : roots_(roots), memo_(memo) {}

  Value eval(const Node& n) {
    Operand o = operand(n);
    return o.ref ? *o.ref : std::move(*o.owned);
  }

  // Evaluates to a bool without materializing Values for the logic and comparisons in
  // between (most of a policy's nodes); the semantics are those of eval + a bool check.
  bool evalBool(const Node& n, const char* what) {
    if (remembers(n)) {
      if (const Value* known = remembered(n)) return asBool(n, *known, what);
      bool b = evalBoolFresh(n, what);
      memo_->values.emplace(n.shape, Value::of(b));
      return b;
    }
    return evalBoolFresh(n, what);
  }

  Operand operand(const Node& n) {
    if (const Value* r = lookup(n)) return Operand(r);
    if (remembers(n)) {
      if (const Value* known = remembered(n)) return Operand(known);
      return Operand(&memo_->values.emplace(n.shape, compute(n)).first->second);
    }
    return Operand(compute(n));
  }

 private:
  // Whether this node's value goes through the memo: a closed piece that other expressions
  // share (shape.hpp).
  bool remembers(const Node& n) const { return memo_ && n.memoizable && isSharedShape(n.shape); }

  const Value* remembered(const Node& n) const {
    auto it = memo_->values.find(n.shape);
    return it == memo_->values.end() ? nullptr : &it->second;
  }

  bool evalBoolFresh(const Node& n, const char* what) {
    switch (n.kind) {
      case Node::Kind::kBinary:
        return binaryBool(n);
      case Node::Kind::kNot:
        return !evalBool(*n.children[0], "!");
      case Node::Kind::kMethod:
        if (isBoolMethod(n)) return methodBool(n);
        break;
      default:
        break;
    }
    Operand o = operand(n);
    return asBool(n, o.get(), what);
  }

  // Resolves names, fields, map keys and list items to the value where it lives; nullptr for
  // expressions that compute a new value. Throws the same errors evaluation does (errors are
  // never remembered).
  const Value* lookup(const Node& n) {
    if (memo_ && n.closedPath) {
      if (const Value* known = memo_->path(n.shape)) return known;
      const Value* found = walk(n);
      if (found) memo_->rememberPath(n.shape, found);
      return found;
    }
    return walk(n);
  }

  const Value* walk(const Node& n) {
    switch (n.kind) {
      case Node::Kind::kLiteral:
        return &n.value;
      case Node::Kind::kIdent: {
        if (n.slot >= 0) return scope_[static_cast<size_t>(n.slot)];
        const Value* root = findField(roots_, n.name);
        if (!root) error(n, "missing field: " + n.name + " is not available for this activity");
        return root;
      }
      case Node::Kind::kMember: {
        const Value* base = lookup(*n.children[0]);
        if (!base || (n.function == Node::Function::kCount && base->kind == Value::Kind::kList))
          return nullptr;
        return field(n, *base, n.name, false);
      }
      case Node::Kind::kIndex: {
        const Value* base = lookup(*n.children[0]);
        if (!base || base->kind == Value::Kind::kString) return nullptr;
        Operand key = operand(*n.children[1]);
        if (base->kind == Value::Kind::kList)
          return &(*base->list)[asIndex(n, key.get(), base->list->size(), false)];
        if (key.get().kind != Value::Kind::kString)
          error(n, std::string("a map key must be a string, got ") + kindName(key.get().kind));
        return field(n, *base, key.get().text, true);
      }
      default:
        return nullptr;
    }
  }

  // `asKey`: the field was read as m['name'] rather than .name (only the message differs,
  // and it is built only on error).
  const Value* field(const Node& n, const Value& base, const std::string& name, bool asKey) {
    auto shown = [&] { return asKey ? "['" + name + "']" : "." + name; };
    if (base.kind != Value::Kind::kStruct && base.kind != Value::Kind::kMap)
      error(n, "cannot read " + shown() + " of " + std::string(kindName(base.kind)) + " " +
                   describe(base));
    const Value* found = findField(*base.fields, name);
    if (!found) error(n, "missing field: " + shown());
    return found;
  }

  Value compute(const Node& n) {
    switch (n.kind) {
      case Node::Kind::kList: {
        List items;
        for (const auto& c : n.children) items.push_back(eval(*c));
        return Value::listOf(std::move(items));
      }
      case Node::Kind::kStruct: {
        Fields f;
        for (size_t i = 0; i < n.children.size(); ++i) f[n.fieldNames[i]] = eval(*n.children[i]);
        return Value::structOf(std::move(f));
      }
      case Node::Kind::kNot:
        return Value::of(!asBool(n, operand(*n.children[0]).get(), "!"));
      case Node::Kind::kBinary:
        return binary(n);
      case Node::Kind::kMember:
        return member(n);
      case Node::Kind::kIndex:
        return index(n);
      case Node::Kind::kSlice:
        return slice(n);
      case Node::Kind::kMethod:
        return method(n);
      case Node::Kind::kCall:
        return call(n);
      default:
        break;
    }
    error(n, "unknown expression");
  }

  Value binary(const Node& n) { return Value::of(binaryBool(n)); }

  bool binaryBool(const Node& n) {
    // Operators are one or two characters: dispatch on them rather than compare strings.
    const std::string& op = n.name;
    const char c0 = op[0];
    const bool two = op.size() == 2;
    // Both sides are evaluated whatever the first gives: no short-circuit.
    if (c0 == '&' || c0 == '|') {
      bool a = evalBool(*n.children[0], op.c_str());
      bool b = evalBool(*n.children[1], op.c_str());
      return c0 == '&' ? (a && b) : (a || b);
    }
    Operand left = operand(*n.children[0]);
    Operand right = operand(*n.children[1]);
    const Value& a = left.get();
    const Value& b = right.get();
    switch (c0) {
      case '=':
        return equals(n, a, b);
      case '!':
        return !equals(n, a, b);
      case 'i': {
        if (b.kind != Value::Kind::kList)
          error(n, std::string("'in' needs a list on its right, got ") + kindName(b.kind));
        bool found = false;
        for (const auto& item : *b.list) found = equals(n, a, item) || found;
        return found;
      }
      case '<':
        return two ? order(n, a, b) <= 0 : order(n, a, b) < 0;
      default:
        return two ? order(n, a, b) >= 0 : order(n, a, b) > 0;  // '>'
    }
  }

  Value member(const Node& n) {
    Operand operandBase = operand(*n.children[0]);
    const Value& base = operandBase.get();
    // `.count` without parentheses is written in the docs; accept it as .count().
    if (n.function == Node::Function::kCount && base.kind == Value::Kind::kList)
      return Value::integer(static_cast<int64_t>(base.list->size()));
    if (base.kind != Value::Kind::kStruct && base.kind != Value::Kind::kMap)
      error(n, "cannot read ." + n.name + " of " + std::string(kindName(base.kind)) + " " +
                   describe(base));
    const Value* found = findField(*base.fields, n.name);
    if (!found) error(n, "missing field: ." + n.name);
    return *found;
  }

  Value index(const Node& n) {
    Operand operandBase = operand(*n.children[0]);
    Operand operandKey = operand(*n.children[1]);
    const Value& base = operandBase.get();
    const Value& key = operandKey.get();
    if (base.kind == Value::Kind::kList)
      return (*base.list)[asIndex(n, key, base.list->size(), false)];
    if (base.kind == Value::Kind::kString)
      return Value::string(std::string(1, base.text[asIndex(n, key, base.text.size(), false)]));
    if (base.kind == Value::Kind::kMap || base.kind == Value::Kind::kStruct) {
      if (key.kind != Value::Kind::kString)
        error(n, std::string("a map key must be a string, got ") + kindName(key.kind));
      const Value* found = findField(*base.fields, key.text);
      if (!found) error(n, "missing field: ['" + key.text + "']");
      return *found;
    }
    error(n, std::string("cannot index ") + kindName(base.kind));
  }

  Value slice(const Node& n) {
    Operand operandBase = operand(*n.children[0]);
    const Value& base = operandBase.get();
    Value from = eval(*n.children[1]);
    Value to = eval(*n.children[2]);
    size_t size = base.kind == Value::Kind::kList ? base.list->size()
                  : base.kind == Value::Kind::kString
                      ? base.text.size()
                      : (error(n, std::string("cannot slice ") + kindName(base.kind)), 0);
    size_t a = asIndex(n, from, size, true), b = asIndex(n, to, size, true);
    if (a > b)
      error(n, "slice start " + std::to_string(a) + " is after its end " + std::to_string(b));
    if (base.kind == Value::Kind::kString) return Value::string(base.text.substr(a, b - a));
    return Value::listOf(
        List(base.list->begin() + static_cast<long>(a), base.list->begin() + static_cast<long>(b)));
  }

  const Value& listOperand(const Node& n, Operand& holder) {
    holder = operand(*n.children[0]);  // keeps the list alive while the lambda runs
    const Value& base = holder.get();
    if (base.kind != Value::Kind::kList)
      error(n, n.name + "() needs a list, got " + std::string(kindName(base.kind)) + " " +
                   describe(base));
    return base;
  }

  bool methodBool(const Node& n) {
    Operand holder;
    const Value& base = listOperand(n, holder);
    if (n.function == Node::Function::kContains) {
      if (n.children.size() != 2) error(n, "contains() takes one argument");
      Operand needle = operand(*n.children[1]);
      bool found = false;
      for (const auto& item : *base.list) found = equals(n, item, needle.get()) || found;
      return found;
    }
    bool all = true, any = false;
    for (const auto& item : *base.list) {
      bool hit = predicate(n, item);
      all = all && hit;
      any = any || hit;
    }
    return n.function == Node::Function::kAll ? all : any;
  }

  bool predicate(const Node& n, const Value& item) {
    scope_.push_back(&item);
    bool hit = evalBool(*n.children[1], "a list function's predicate");
    scope_.pop_back();
    return hit;
  }

  Value method(const Node& n) {
    const std::string& name = n.name;
    if (isBoolMethod(n)) return Value::of(methodBool(n));
    Operand holder;
    if (n.function == Node::Function::kCount) {
      // list.filter(v, p).count(): count the hits without building the filtered list. The
      // predicate still runs on every item, so errors are the same as materializing it.
      const Node& base = *n.children[0];
      if (base.kind == Node::Kind::kMethod && base.function == Node::Function::kFilter) {
        Operand source;
        int64_t hits = 0;
        for (const auto& item : *listOperand(base, source).list) hits += predicate(base, item);
        return Value::integer(hits);
      }
      holder = operand(*n.children[0]);
      if (holder.get().kind == Value::Kind::kList)
        return Value::integer(static_cast<int64_t>(holder.get().list->size()));
      error(n, std::string("count() needs a list, got ") + kindName(holder.get().kind));
    }
    const Value& base = listOperand(n, holder);
    if (n.function == Node::Function::kFilter) {
      List kept;
      for (const auto& item : *base.list)
        if (predicate(n, item)) kept.push_back(item);
      return Value::listOf(std::move(kept));
    }
    error(n, "unknown list function " + name + "()");
  }

  Value call(const Node& n) {
    if (n.name == "Timestamp") {
      if (n.children.size() != 1) error(n, "Timestamp() takes one RFC 3339 string");
      Operand operandArg = operand(*n.children[0]);
      const Value& arg = operandArg.get();
      auto ms = arg.kind == Value::Kind::kString ? parseTimestamp(arg.text) : std::nullopt;
      if (!ms)
        error(n, "Timestamp() needs an RFC 3339 time at offset zero, like '2026-03-01T00:00:00Z'");
      return Value::timestamp(*ms);
    }
    if (n.name == "CronSpan") {
      if (n.children.size() != 3)
        error(n, "CronSpan() takes a cron expression, a duration and a time zone");
      std::string args[3];
      for (size_t i = 0; i < 3; ++i) {
        Operand arg = operand(*n.children[i]);
        if (arg.get().kind != Value::Kind::kString)
          error(n, std::string("CronSpan() takes strings, got ") + kindName(arg.get().kind));
        args[i] = arg.get().text;
      }
      std::optional<CronSpan> span;
      try {
        span.emplace(args[0], args[1], args[2]);
      } catch (const std::invalid_argument& e) {
        error(n, std::string("CronSpan(): ") + e.what());
      }
      // The instant it is tested at: the one time.now of this activity.
      const Value* time = findField(roots_, "time");
      const Value* now =
          time && time->kind == Value::Kind::kStruct ? findField(*time->fields, "now") : nullptr;
      if (!now || now->kind != Value::Kind::kTimestamp)
        error(n, "CronSpan() reads time.now, which only a policy's time expression has");
      return Value::of(span->contains(static_cast<int64_t>(now->number)));
    }
    error(n, "unknown function " + n.name + "() (functions are Timestamp and CronSpan)");
  }

  const Fields& roots_;
  Memo* memo_;  // may be null; values there stay put (unordered_map nodes do not move)
  Scope scope_;
};

}  // namespace

std::optional<int64_t> parseTimestamp(const std::string& text) {
  // YYYY-MM-DDTHH:MM:SS[.fff](Z|z|+00:00|-00:00)
  std::tm tm{};
  int fraction = 0;
  size_t consumed = 0;
  if (text.size() < 20) return std::nullopt;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2d%*1[Tt]%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon,
                  &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
    return std::nullopt;
  consumed = 19;
  if (consumed < text.size() && text[consumed] == '.') {
    size_t j = consumed + 1, digits = 0;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) {
      if (digits < 3) fraction = fraction * 10 + (text[j] - '0');
      ++digits;
      ++j;
    }
    if (digits == 0) return std::nullopt;
    for (; digits < 3; ++digits) fraction *= 10;
    consumed = j;
  }
  std::string zone = text.substr(consumed);
  if (zone != "Z" && zone != "z" && zone != "+00:00" && zone != "-00:00") return std::nullopt;
  if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
      tm.tm_min > 59 || tm.tm_sec > 60)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<int64_t>(timegm(&tm)) * 1000 + fraction;
}

Fields timeFacts(int64_t nowMs) {
  return {{"time", Value::structOf({{"now", Value::timestamp(nowMs)}})}};
}

Value evaluate(const Node& node, const Fields& roots, Memo* memo) {
  return Evaluator(roots, memo).eval(node);
}

bool evaluateCondition(const Node& node, const Fields& roots, Memo* memo) {
  if (node.kind == Node::Kind::kBinary || node.kind == Node::Kind::kNot ||
      (node.kind == Node::Kind::kMethod && isBoolMethod(node)))
    return Evaluator(roots, memo).evalBool(node, "the expression");
  Value v = evaluate(node, roots, memo);
  if (v.kind != Value::Kind::kBool)
    throw EvaluationError(node.position, std::string("the expression gives ") + kindName(v.kind) +
                                             " " + describe(v) + ", not a bool");
  return v.boolean;
}

}  // namespace signet::policy
