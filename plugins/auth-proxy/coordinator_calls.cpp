#include "coordinator_calls.hpp"

namespace auth_proxy {

using namespace signet;

CoordinatorCalls::CoordinatorCalls(const Coordinator& coordinator, const LoadedConfig& config)
    : client_(coordinator.url, config.stamper, coordinator.caFile) {
  client_.setHeaders(coordinator.headers);
}

json::Object CoordinatorCalls::activity(const std::string& path, const std::string& type,
                                        const std::string& organizationId,
                                        const json::Object& parameters) const {
  json::Object a = client_.submit(path, type, organizationId, parameters);
  std::string status = a->optValue<std::string>("status", "");
  std::string id = a->optValue<std::string>("id", "");
  if (status == "ACTIVITY_STATUS_COMPLETED") return a;
  if (status == "ACTIVITY_STATUS_FAILED") {
    auto failure = a->getObject("failure");
    std::string message = failure ? failure->optValue<std::string>("message", "") : "";
    int code = failure ? failure->optValue<int>("code", 9) : 9;
    throw Error(static_cast<Code>(code == 0 ? 9 : code),
                message.empty() ? "activity " + id + " failed" : message);
  }
  if (status == "ACTIVITY_STATUS_CONSENSUS_NEEDED")
    throw failedPrecondition(
        "activity " + id + " (" + type +
        ") needs more approvals (ACTIVITY_STATUS_CONSENSUS_NEEDED): the proxy user's policy does "
        "not let it run alone; see the policies of organization " +
        organizationId);
  if (status == "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED")
    throw failedPrecondition("activity " + id + " (" + type +
                             ") needs a second factor (ACTIVITY_STATUS_AUTHENTICATORS_NEEDED): "
                             "an MFA policy of organization " +
                             organizationId + " covers it, which the proxy cannot satisfy");
  throw Error(Code::kUnavailable,
              "activity " + id + " (" + type + ") is still " + status + "; try again");
}

json::Object CoordinatorCalls::result(const std::string& path, const std::string& type,
                                      const std::string& organizationId,
                                      const json::Object& parameters,
                                      const std::string& resultKey) const {
  auto a = activity(path, type, organizationId, parameters);
  auto result = a->getObject("result");
  auto inner = result ? result->getObject(resultKey) : nullptr;
  if (!inner)
    throw internalError("activity " + a->optValue<std::string>("id", "") +
                        " completed without result." + resultKey);
  return inner;
}

json::Object CoordinatorCalls::query(const std::string& op, const json::Object& body) const {
  return client_.query(op, body);
}

}  // namespace auth_proxy
