#include "policy/shape.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>

#include <Poco/SHA2Engine.h>
#include <unordered_map>

namespace signet::policy {

namespace {

// Bounds the table at a few tens of MB even if policies churn without end: keys longer than
// a digest are stored as their SHA-256 (a collision would make two different pieces share a
// value, so the digest must be collision-resistant, not just a hash-table hash).
constexpr size_t kMaxShapes = 1 << 18;

// An unambiguous rendering of a literal: kinds tagged, strings length-prefixed.
void renderValue(const Value& v, std::string& out) {
  switch (v.kind) {
    case Value::Kind::kBool:
      out += v.boolean ? "b1" : "b0";
      return;
    case Value::Kind::kInt:
    case Value::Kind::kUint:
    case Value::Kind::kTimestamp:
      out += v.kind == Value::Kind::kTimestamp ? 't' : 'i';
      out += v.number.str();
      out += ';';
      return;
    case Value::Kind::kString:
      out += 's' + std::to_string(v.text.size()) + ':' + v.text;
      return;
    case Value::Kind::kList:
      out += 'l' + std::to_string(v.list->size()) + '(';
      for (const auto& item : *v.list) renderValue(item, out);
      out += ')';
      return;
    default:
      out += 'm' + std::to_string(v.fields->size()) + '(';
      for (const auto& [k, item] : *v.fields) {
        out += std::to_string(k.size()) + ':' + k;
        renderValue(item, out);
      }
      out += ')';
  }
}

// How many parsed expressions use each shape, saturating at 2. Chunks are allocated under
// the table's mutex and published through atomics, so readers never lock.
constexpr size_t kChunk = 4096;
std::atomic<std::atomic<uint8_t>*> useChunks[kMaxShapes / kChunk + 1];
std::mutex mutex;

std::atomic<uint8_t>* usesOf(uint32_t shape) {
  std::atomic<uint8_t>* chunk = useChunks[shape / kChunk].load(std::memory_order_acquire);
  return chunk ? &chunk[shape % kChunk] : nullptr;
}

std::string compact(const std::string& key) {
  if (key.size() <= 32) return key;
  Poco::SHA2Engine sha(Poco::SHA2Engine::SHA_256);
  sha.update(key);
  const auto& digest = sha.digest();
  return "#" + std::string(digest.begin(), digest.end());  // '#': no short key starts so
}

uint32_t intern(const std::string& longKey) {
  static std::unordered_map<std::string, uint32_t> ids;
  std::string key = compact(longKey);
  std::lock_guard lock(mutex);
  auto it = ids.find(key);
  if (it != ids.end()) return it->second;
  if (ids.size() >= kMaxShapes) return 0;
  uint32_t id = static_cast<uint32_t>(ids.size() + 1);
  ids.emplace(key, id);
  auto& slot = useChunks[id / kChunk];
  if (!slot.load(std::memory_order_relaxed))
    slot.store(new std::atomic<uint8_t>[kChunk](), std::memory_order_release);  // lives forever
  return id;
}

// Only nodes that compute something are worth a memo entry; names, fields and indexes
// already resolve to the value where it lives.
bool computes(Node::Kind kind) {
  switch (kind) {
    case Node::Kind::kBinary:
    case Node::Kind::kNot:
    case Node::Kind::kMethod:
    case Node::Kind::kSlice:
    case Node::Kind::kCall:
    case Node::Kind::kList:
    case Node::Kind::kStruct:
      return true;
    default:
      return false;
  }
}

// Returns the identifiers the subtree reads from outside itself; `bound` are the lambda
// variables its ancestors bind.
std::vector<std::string> mark(Node& n, std::vector<std::string>& bound,
                              std::vector<uint32_t>& shapes) {
  std::vector<std::string> free;
  auto add = [&](const std::vector<std::string>& names, const std::string* except) {
    for (const auto& name : names)
      if ((!except || name != *except) && std::find(free.begin(), free.end(), name) == free.end())
        free.push_back(name);
  };
  if (n.kind == Node::Kind::kIdent) {
    free.push_back(n.name);
    auto binding = std::find(bound.rbegin(), bound.rend(), n.name);  // the innermost
    n.slot = binding == bound.rend() ? -1 : static_cast<int>(bound.rend() - binding) - 1;
  }
  for (size_t i = 0; i < n.children.size(); ++i) {
    Node& child = const_cast<Node&>(*n.children[i]);  // the tree is not shared yet
    bool binds = i > 0 && !n.lambdaVar.empty();
    if (binds) bound.push_back(n.lambdaVar);
    auto childFree = mark(child, bound, shapes);
    if (binds) bound.pop_back();
    add(childFree, binds ? &n.lambdaVar : nullptr);
  }

  std::string key = std::to_string(static_cast<int>(n.kind)) + '|' + n.name + '|' + n.lambdaVar;
  for (const auto& f : n.fieldNames) key += '|' + std::to_string(f.size()) + ':' + f;
  key += '|';
  if (n.kind == Node::Kind::kLiteral) renderValue(n.value, key);
  bool keyed = true;
  for (const auto& c : n.children) {
    keyed = keyed && c->shape != 0;
    key += std::to_string(c->shape) + ',';
  }
  n.shape = keyed ? intern(key) : 0;

  bool closed = std::none_of(free.begin(), free.end(), [&](const std::string& name) {
    return std::find(bound.begin(), bound.end(), name) != bound.end();
  });
  n.memoizable = n.shape != 0 && closed && computes(n.kind);
  n.closedPath =
      n.shape != 0 && closed && (n.kind == Node::Kind::kMember || n.kind == Node::Kind::kIndex);
  if (n.memoizable) shapes.push_back(n.shape);
  return free;
}

}  // namespace

void assignShapes(Node& root) {
  std::vector<std::string> bound;
  std::vector<uint32_t> shapes;
  mark(root, bound, shapes);
  std::sort(shapes.begin(), shapes.end());
  shapes.erase(std::unique(shapes.begin(), shapes.end()), shapes.end());
  for (uint32_t shape : shapes) {
    auto* uses = usesOf(shape);
    uint8_t seen = uses->load(std::memory_order_relaxed);
    while (seen < 2 && !uses->compare_exchange_weak(seen, seen + 1)) {
    }
  }
}

bool isSharedShape(uint32_t shape) {
  auto* uses = shape ? usesOf(shape) : nullptr;
  return uses && uses->load(std::memory_order_relaxed) >= 2;
}

}  // namespace signet::policy
