#include "elf_section.hpp"

#include <elf.h>

#include <cstring>
#include <stdexcept>

namespace signet {

namespace {

void need(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("truncated or malformed ELF file: " + what);
}

// A copy of a structure at `offset`, checked to lie within the file.
template <class T>
T read(std::string_view file, uint64_t offset, const char* what) {
  need(offset <= file.size() && file.size() - offset >= sizeof(T),
       std::string(what) + " lies past the end of the file");
  T value;
  std::memcpy(&value, file.data() + offset, sizeof(T));
  return value;
}

}  // namespace

std::optional<std::string_view> elfSection(std::string_view file, std::string_view name) {
  need(file.size() >= EI_NIDENT && std::memcmp(file.data(), ELFMAG, SELFMAG) == 0,
       "no ELF magic number");
  need(file[EI_CLASS] == ELFCLASS64, "not a 64-bit ELF object");
  need(file[EI_DATA] == ELFDATA2LSB, "not little-endian");
  auto header = read<Elf64_Ehdr>(file, 0, "the ELF header");
  need(header.e_shentsize == sizeof(Elf64_Shdr), "unexpected section header size");
  need(header.e_shnum > 0 && header.e_shstrndx < header.e_shnum, "no section name table");
  auto sectionAt = [&](uint64_t index) {
    return read<Elf64_Shdr>(file, header.e_shoff + index * sizeof(Elf64_Shdr), "a section header");
  };
  auto contents = [&](const Elf64_Shdr& s) {
    need(s.sh_offset <= file.size() && file.size() - s.sh_offset >= s.sh_size,
         "a section's contents lie past the end of the file");
    return file.substr(s.sh_offset, s.sh_size);
  };
  std::string_view names = contents(sectionAt(header.e_shstrndx));
  for (uint64_t i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr s = sectionAt(i);
    need(s.sh_name < names.size(), "a section name lies outside the name table");
    std::string_view rest = names.substr(s.sh_name);
    std::string_view sectionName = rest.substr(0, rest.find('\0'));
    if (sectionName != name) continue;
    need(s.sh_type == SHT_PROGBITS, "section " + std::string(name) + " holds no data");
    return contents(s);
  }
  return std::nullopt;
}

}  // namespace signet
