// What one decision about an activity and the run of its handler share
// (RequestContext::requestCache). A handler often needs what its policy facts already read or
// parsed: the key signWith names, the transaction being signed. The gateway decides and runs an
// activity on one view of the store and hands the facts hook and the handler the same cache, so
// such work is done once. A cache never outlives that view: the next request, or the next try of
// this one, starts empty, so nothing in it can be stale.
#pragma once

#include <map>
#include <memory>
#include <string>

namespace signet {

class RequestCache {
 public:
  // The value kept under `key`, made by `make()` the first time. Keys are the caller's own
  // ("<plugin>.<what>:<organization>:<id>", naming everything the value depends on): a key means
  // one type, and only the code that made it reads it. What `make` throws is not kept; the next
  // call makes it again.
  template <class T, class Make>
  T& get(const std::string& key, Make&& make) {
    auto it = values_.find(key);
    if (it == values_.end())
      it = values_.emplace(key, std::make_shared<T>(std::forward<Make>(make)())).first;
    return *static_cast<T*>(it->second.get());
  }
  size_t size() const { return values_.size(); }

 private:
  // shared_ptr<void> deletes with the deleter of the type it was made with.
  std::map<std::string, std::shared_ptr<void>> values_;
};

}  // namespace signet
