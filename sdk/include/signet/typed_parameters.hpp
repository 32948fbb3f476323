// An activity's parameters as a struct of the plugin's own. One table names each member, its
// field in the intent and its rules; from it come the row's ParamSpec (checked before any policy
// runs, ActivitySpec::parameters) and the reading of the intent into the struct, so the handler
// takes typed values and does not look a field up or test its type again:
//
//   struct GreetParameters {
//     std::string name;
//     std::optional<bool> loud;
//   };
//   const Shape<GreetParameters> kGreet = {field("name", &GreetParameters::name, {.maxLength =
//   64}),
//                                          field("loud", &GreetParameters::loud)};
//   json::Object greet(ActivityContext&, const GreetParameters&);
//   r.activity({..., .handler = kGreet.handler(greet), .parameters = kGreet.specs()});
//
// A member's type gives the field's: std::string (a UUID with {.uuid = true}, a name without
// control characters with {.displayName = true}, 1 to N bytes with {.maxLength = N}), bool,
// int64_t ({.decimal = true}: or in a decimal string), json::Object and json::Array (left to the
// handler), std::vector<std::string>, and a struct or std::vector of structs with a Shape of their
// own. std::optional<...> makes a field optional; anything else is required. A settings field
// where null means "remove" is a std::optional<std::optional<...>>: disengaged when absent,
// holding an empty optional when it came as null, and the value otherwise.
//
// A shape made with Shape<T>::closed({...}) refuses any field it does not declare, where nested
// (ParamSpec::closed, at admission) and at the top when the handler reads it.
//
// Shapes are usually globals beside their handler. One that another file's shape nests should be
// returned by a function (a static made on first use): the order in which globals of different
// files are made is not defined, and a copy taken too early would be empty.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "signet/parameter_shape.hpp"
#include "signet/plugin.hpp"

namespace signet {

// The rules beside a member's type.
struct FieldRules {
  size_t maxLength = 0;      // strings, and a list's strings: 1 to maxLength bytes when set
  bool uuid = false;         // a string that must be a UUID
  bool displayName = false;  // a name: no control characters (json::requireName's rule)
  bool decimal = false;  // an int64_t that may also come as a decimal string (ParamType::kDecimal)
  // A std::optional member that this shape requires. One struct serves every version of an
  // activity, with a Shape per version: a field a later version added is optional in the
  // struct, left out of the older version's shape and required by the newer one's.
  bool required = false;
};

template <class T>
class Shape {
 public:
  // One member: its declared shape, and how a checked value is stored into it.
  struct Field {
    ParamSpec spec;
    std::function<void(T&, const Poco::Dynamic::Var&)> store;
    bool nullable = false;  // stored when it came as null too (std::optional<std::optional<M>>)
  };

  Shape(std::initializer_list<Field> fields) : fields_(fields) {
    for (const auto& f : fields_) specs_.push_back(f.spec);
  }

  // A shape whose object holds only the fields it declares.
  static Shape closed(std::initializer_list<Field> fields) {
    Shape shape(fields);
    shape.closed_ = true;
    return shape;
  }

  // What ActivitySpec::parameters declares.
  const std::vector<ParamSpec>& specs() const { return specs_; }
  bool isClosed() const { return closed_; }

  // The intent's parameters, checked and read. The pipeline checked them at submission, but an
  // approved activity runs from its stored intent, perhaps under a newer gateway whose shape
  // changed since: the check is repeated here, at the cost of a few comparisons a field.
  T read(const json::Object& parameters, const std::string& path = "parameters") const {
    checkParameterShapes(specs_, parameters, path);
    if (closed_) checkNoOtherFields(specs_, parameters, path);
    return readChecked(parameters);
  }

  // A value whose shape was checked: stored member by member, absent ones left as T has them.
  T readChecked(const json::Object& o) const {
    T out{};
    for (const auto& f : fields_) {
      if (!o->has(f.spec.name)) continue;
      auto v = o->get(f.spec.name);
      if (!v.isEmpty() || f.nullable) f.store(out, v);
    }
    return out;
  }

  // An ActivityHandler that reads the parameters and calls fn(context, typed parameters).
  template <class Fn>
  ActivityHandler handler(Fn fn) const {
    return [shape = *this, fn = std::move(fn)](ActivityContext& ctx, const json::Object& p) {
      return fn(ctx, shape.read(p));
    };
  }

 private:
  std::vector<Field> fields_;
  std::vector<ParamSpec> specs_;
  bool closed_ = false;
};

namespace typed_parameters_detail {

template <class M>
struct Optional : std::false_type {
  using type = M;
};
template <class M>
struct Optional<std::optional<M>> : std::true_type {
  using type = M;
};
// std::optional<std::optional<M>>: a field whose null is told from its absence.
template <class M>
struct Nullable : std::false_type {
  using type = M;
};
template <class M>
struct Nullable<std::optional<std::optional<M>>> : std::true_type {
  using type = M;
};

// How a checked value (empty when it came as null) is stored into a member of type M whose
// value type is V: as it is, in an optional, or, for a nullable member, null as an engaged
// empty optional.
template <class M, class V>
void storeInto(M& member, const Poco::Dynamic::Var& v, V (*from)(const Poco::Dynamic::Var&)) {
  if constexpr (Nullable<M>::value) {
    if (v.isEmpty())
      member.emplace();  // engaged, holding nothing: it came as null
    else
      member.emplace(from(v));
  } else {
    member = from(v);
  }
}

// The declared type of a scalar member, and its value from a checked Var.
template <class M>
struct Scalar;
template <>
struct Scalar<std::string> {
  static constexpr ParamType type = ParamType::kString;
  static std::string from(const Poco::Dynamic::Var& v) { return v.extract<std::string>(); }
};
template <>
struct Scalar<bool> {
  static constexpr ParamType type = ParamType::kBool;
  static bool from(const Poco::Dynamic::Var& v) { return v.extract<bool>(); }
};
template <>
struct Scalar<int64_t> {
  static constexpr ParamType type = ParamType::kInteger;
  // A checked kDecimal may be a string of digits.
  static int64_t from(const Poco::Dynamic::Var& v) {
    return v.isString() ? json::decimalOf(v.extract<std::string>(), "") : v.convert<int64_t>();
  }
};
template <>
struct Scalar<json::Object> {
  static constexpr ParamType type = ParamType::kObject;
  static json::Object from(const Poco::Dynamic::Var& v) { return v.extract<json::Object>(); }
};
template <>
struct Scalar<json::Array> {
  static constexpr ParamType type = ParamType::kArray;
  static json::Array from(const Poco::Dynamic::Var& v) { return v.extract<json::Array>(); }
};
template <>
struct Scalar<std::vector<std::string>> {
  static constexpr ParamType type = ParamType::kArray;
  static std::vector<std::string> from(const Poco::Dynamic::Var& v) {
    std::vector<std::string> out;
    for (const auto& item : *v.extract<json::Array>()) out.push_back(item.extract<std::string>());
    return out;
  }
};

}  // namespace typed_parameters_detail

// A member of a scalar type (see the list above), optional when it is a std::optional.
template <class T, class M>
typename Shape<T>::Field field(std::string name, M T::*member, FieldRules rules = {}) {
  using Nullable = typed_parameters_detail::Nullable<M>;
  using Opt = typed_parameters_detail::Optional<
      std::conditional_t<Nullable::value, std::optional<typename Nullable::type>, M>>;
  using S = typed_parameters_detail::Scalar<typename Opt::type>;
  if (Nullable::value && rules.required)
    throw std::logic_error("field " + name + ": a nullable member cannot be required");
  constexpr bool list = std::is_same_v<typename Opt::type, std::vector<std::string>>;
  constexpr bool text = list || std::is_same_v<typename Opt::type, std::string>;
  // The rules are values, so a rule on a member it cannot apply to is refused when the shape is
  // made, naming the field: a global shape stops the plugin's tests, or its load, right there,
  // rather than passing the check and failing a request's read after its policies ran.
  if ((rules.uuid || rules.displayName || rules.maxLength) && !text)
    throw std::logic_error("field " + name +
                           ": uuid, displayName and maxLength are rules of a std::string or a "
                           "std::vector<std::string> member");
  if (rules.decimal && (!std::is_same_v<typename Opt::type, int64_t> || rules.uuid))
    throw std::logic_error("field " + name + ": decimal is a rule of an int64_t member");
  // A string's rules give its type; a list's give its elements'.
  const ParamType scalar = rules.uuid      ? ParamType::kUuid
                           : rules.decimal ? ParamType::kDecimal
                                           : S::type;
  ParamSpec spec{.name = std::move(name),
                 .type = list ? ParamType::kArray : scalar,
                 .required = !Opt::value || rules.required,
                 .maxLength = rules.maxLength,
                 .displayName = rules.displayName};
  if constexpr (list) spec.elements = rules.uuid ? ParamType::kUuid : ParamType::kString;
  return {std::move(spec),
          [member](T& out, const Poco::Dynamic::Var& v) {
            typed_parameters_detail::storeInto(out.*member, v, &S::from);
          },
          Nullable::value};
}

// A member that is an object with a shape of its own (std::optional<S> when optional), or a
// list of them (std::vector<S>). Of the rules, only `required` applies.
template <class T, class M, class S>
typename Shape<T>::Field field(std::string name, M T::*member, const Shape<S>& shape,
                               FieldRules rules = {}) {
  using Nullable = typed_parameters_detail::Nullable<M>;
  using Opt = typed_parameters_detail::Optional<
      std::conditional_t<Nullable::value, std::optional<typename Nullable::type>, M>>;
  constexpr bool list = std::is_same_v<typename Opt::type, std::vector<S>>;
  static_assert(list || std::is_same_v<typename Opt::type, S>,
                "the member is the shape's struct, a std::vector of it, or a std::optional");
  if (rules.uuid || rules.displayName || rules.maxLength || rules.decimal ||
      (Nullable::value && rules.required))
    throw std::logic_error("field " + name +
                           ": an object or a list of them takes no rule but required, and a "
                           "nullable one not that");
  ParamSpec spec{.name = std::move(name),
                 .type = list ? ParamType::kArray : ParamType::kObject,
                 .required = !Opt::value || rules.required,
                 .fields = shape.specs(),
                 .closed = shape.isClosed()};
  return {std::move(spec),
          [member, shape](T& out, const Poco::Dynamic::Var& v) {
            if (v.isEmpty()) {  // only a nullable member is stored when it came as null
              if constexpr (Nullable::value) (out.*member).emplace();
              return;
            }
            typename Opt::type value;
            if constexpr (list) {
              for (const auto& item : *v.extract<json::Array>())
                value.push_back(shape.readChecked(item.extract<json::Object>()));
            } else {
              value = shape.readChecked(v.extract<json::Object>());
            }
            out.*member = std::move(value);
          },
          Nullable::value};
}

}  // namespace signet
