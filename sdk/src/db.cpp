#include "signet/db.hpp"

#include <stdexcept>

namespace signet {

const std::string& Row::str(size_t i) const {
  if (auto* s = std::get_if<std::string>(&cells_.at(i))) return *s;
  throw std::logic_error("column " + std::to_string(i) + " is not text");
}

int64_t Row::i64(size_t i) const {
  if (auto* v = std::get_if<int64_t>(&cells_.at(i))) return *v;
  if (auto* s = std::get_if<std::string>(&cells_.at(i))) return std::stoll(*s);
  throw std::logic_error("column " + std::to_string(i) + " is null");
}

std::optional<std::string> Row::optStr(size_t i) const {
  if (isNull(i)) return std::nullopt;
  return str(i);
}

std::optional<int64_t> Row::optI64(size_t i) const {
  if (isNull(i)) return std::nullopt;
  return i64(i);
}

}  // namespace signet
