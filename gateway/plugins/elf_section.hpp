// Reads one named section of an ELF shared object from its bytes, without loading it: how the
// plugin host reads a plugin's descriptor before trusting (or running) anything in the library.
// Every offset and size is checked against the file, so a truncated or corrupt file is refused
// with what is wrong, never read past its end.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace signet {

// The section's bytes, or nullopt when the file is a well-formed ELF64 object without that
// section. Throws std::runtime_error saying what is malformed otherwise.
std::optional<std::string_view> elfSection(std::string_view file, std::string_view name);

}  // namespace signet
