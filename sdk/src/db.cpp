#include "signet/db.hpp"

#include <stdexcept>

namespace signet {

const std::vector<std::string>& Row::columns() const {
  static const std::vector<std::string> none;
  return columns_ ? *columns_ : none;
}

bool Row::has(std::string_view column) const {
  if (!columns_) return false;
  for (const auto& name : *columns_)
    if (name == column) return true;
  return false;
}

const SqlValue& Row::cell(std::string_view column) const {
  if (columns_)
    for (size_t i = 0; i < columns_->size() && i < cells_.size(); ++i)
      if ((*columns_)[i] == column) return cells_[i];
  std::string names;
  if (columns_)
    for (const auto& name : *columns_) names += (names.empty() ? "" : ", ") + name;
  throw std::out_of_range("no column \"" + std::string(column) + "\" in this row (" + names + ")");
}

bool Row::isNull(std::string_view column) const {
  return std::holds_alternative<std::nullptr_t>(cell(column));
}

const std::string& Row::str(std::string_view column) const {
  if (auto* s = std::get_if<std::string>(&cell(column))) return *s;
  throw std::logic_error("column " + std::string(column) + " is not text");
}

int64_t Row::i64(std::string_view column) const {
  const SqlValue& v = cell(column);
  if (auto* n = std::get_if<int64_t>(&v)) return *n;
  if (auto* s = std::get_if<std::string>(&v)) return std::stoll(*s);
  throw std::logic_error("column " + std::string(column) + " is null");
}

std::optional<std::string> Row::optStr(std::string_view column) const {
  if (isNull(column)) return std::nullopt;
  return str(column);
}

std::optional<int64_t> Row::optI64(std::string_view column) const {
  if (isNull(column)) return std::nullopt;
  return i64(column);
}

}  // namespace signet
