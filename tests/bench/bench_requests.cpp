// Pre-stamped requests for tests/bench/http_bench.sh, and the crypto floor of each kind.
//
//   bench_requests CREDENTIALS.json KIND COUNT OUT   writes COUNT requests, one a line:
//                                                    path TAB stamp-header TAB value TAB body
//   bench_requests --floor KIND                       prints the kind's floor, requests/s/core
//
// KIND: sign_raw_payload, whoami, get_activity, create_wallet_accounts. Activities get unique
// bodies (a payload and timestampMs of their own), so that none is answered from an identical
// earlier one. What a kind needs (a wallet to sign with, an activity to read) is made first,
// through the API, with the credentials file `signet org create` wrote.
#include <fstream>
#include <iostream>

#include "crypto_floor.hpp"
#include "signet/client.hpp"

using namespace signet;

namespace {

json::Object parse(const std::string& text) {
  return json::parseObject(text, "bench");
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string activityBody(const std::string& type, const std::string& org, int64_t timestampMs,
                         const std::string& parameters) {
  return R"({"type":")" + type + R"(","timestampMs":")" + std::to_string(timestampMs) +
         R"(","organizationId":")" + org + R"(","parameters":)" + parameters + "}";
}

const char* kEthAccount =
    R"({"curve":"CURVE_SECP256K1","pathFormat":"PATH_FORMAT_BIP32","path":"m/44'/60'/0'/0/%d","addressFormat":"ADDRESS_FORMAT_ETHEREUM"})";

std::string ethAccount(int index) {
  char text[256];
  std::snprintf(text, sizeof text, kEthAccount, index);
  return text;
}

int floor(const std::string& kind) {
  auto c = bench::measureCryptoCosts();
  double micros = c.verifyP256Us;
  std::string what = "P-256 verify";
  if (kind == "sign_raw_payload") {
    micros += c.signSecp256k1Us;
    what += " + secp256k1 sign";
  } else if (kind == "create_wallet_accounts") {
    micros += c.deriveAccountUs;
    what += " + BIP-32 derivation";
  } else if (kind != "whoami" && kind != "get_activity") {
    std::cerr << "unknown kind " << kind << "\n";
    return 2;
  }
  std::cout << 1e6 / micros << "\t" << what << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--floor") return floor(argv[2]);
  if (argc != 5) {
    std::cerr << "usage: bench_requests CREDENTIALS.json KIND COUNT OUT | --floor KIND\n";
    return 2;
  }
  auto credentials = parse(readFile(argv[1]));
  const std::string kind = argv[2];
  const int count = std::stoi(argv[3]);
  const std::string org = credentials->getValue<std::string>("defaultOrganizationId");
  auto stamper = ApiKeyStamper::fromHex(credentials->getValue<std::string>("apiPrivateKey"));
  Client client(credentials->getValue<std::string>("apiBaseUrl"), stamper);

  // What the kind needs, made once through the API.
  std::string walletId, address, activityId;
  if (kind != "whoami") {
    auto created = client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", org,
                                 parse(R"({"walletName":"bench )" + std::to_string(nowMs()) +
                                       R"(","accounts":[)" + ethAccount(0) + "]}"));
    activityId = created->getValue<std::string>("id");
    auto result = created->getObject("result")->getObject("createWalletResult");
    walletId = result->getValue<std::string>("walletId");
    address = result->getArray("addresses")->getElement<std::string>(0);
  }

  std::ofstream out(argv[4]);
  const int64_t start = nowMs();
  for (int i = 0; i < count; ++i) {
    std::string path, body;
    if (kind == "sign_raw_payload") {
      char payload[32];
      std::snprintf(payload, sizeof payload, "%016x", i);
      path = "/public/v1/submit/sign_raw_payload";
      body = activityBody("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", org, start + i,
                          R"({"signWith":")" + address + R"(","payload":")" + payload +
                              R"(","encoding":"PAYLOAD_ENCODING_HEXADECIMAL",)" +
                              R"("hashFunction":"HASH_FUNCTION_KECCAK256"})");
    } else if (kind == "create_wallet_accounts") {
      path = "/public/v1/submit/create_wallet_accounts";
      body = activityBody(
          "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS", org, start + i,
          R"({"walletId":")" + walletId + R"(","accounts":[)" + ethAccount(i + 1) + "]}");
    } else if (kind == "whoami") {
      path = "/public/v1/query/whoami";
      body = R"({"organizationId":")" + org + R"("})";
    } else if (kind == "get_activity") {
      path = "/public/v1/query/get_activity";
      body = R"({"organizationId":")" + org + R"(","activityId":")" + activityId + R"("})";
    } else {
      std::cerr << "unknown kind " << kind << "\n";
      return 2;
    }
    auto [name, value] = stamper->stamp(body);
    out << path << '\t' << name << '\t' << value << '\t' << body << '\n';
  }
  return 0;
}
