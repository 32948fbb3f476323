// Stamped sign_raw_payload over HTTP on loopback against a real gateway (SQLite, the signing
// plugin), beside the crypto floor measured in the same run: one P-256 stamp verification
// plus one secp256k1 signature per request. Prints its figures; asserts nothing.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>
#include <vector>

#include "crypto_floor.hpp"
#include "gateway.hpp"
#include "server/http_server.hpp"
#include "signet/client.hpp"
#include "store/keyring.hpp"
#include "tenancy/bootstrap.hpp"

using namespace signet;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  int perThread = argc > 1 ? std::stoi(argv[1]) : 300;
  auto dir = std::filesystem::temp_directory_path() / ("signet-bench-" + crypto::uuidV4());
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "signet.json") << Config::defaultFileText({"signing"});
  Config config = Config::load(dir);
  config.listen = "127.0.0.1:0";
  // Throughput, not admission: one client address and one organization send everything.
  config.server.rateLimit.perIpPerSecond = 0;
  config.server.rateLimit.perOrganizationPerSecond = 0;
  MasterKey::create(config.masterKeyFile);
  Gateway gateway(config);
  Gateway::ensureSignerKey(gateway.database(), gateway.masterKey());
  HttpServer server(gateway, config.listen);
  server.start();
  std::string base = "http://127.0.0.1:" + std::to_string(server.port());

  auto rootKey = crypto::generatePrivateKey(crypto::Curve::kP256);
  std::string rootPublic = toHex(crypto::publicKeyFromPrivate(crypto::Curve::kP256, rootKey));
  BootstrapResult root;
  gateway.database().transaction([&](Db& db) {
    root = createRootOrganization(db, "bench", "bench root", rootPublic, "API_KEY_CURVE_P256",
                                  gateway.nowMs());
  });
  auto stamper =
      std::make_shared<ApiKeyStamper>(crypto::SecretBytes(rootKey.bytes()), stamp::Scheme::kP256);
  Client client(base, stamper);
  auto wallet = json::parseObject(
      R"({"walletName":"bench","accounts":[{"curve":"CURVE_SECP256K1","pathFormat":"PATH_FORMAT_BIP32","path":"m/44'/60'/0'/0/0","addressFormat":"ADDRESS_FORMAT_ETHEREUM"}]})",
      "bench");
  std::string address =
      client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", root.organizationId, wallet)
          ->getObject("result")
          ->getObject("createWalletResult")
          ->getArray("addresses")
          ->getElement<std::string>(0);

  auto signOnce = [&](const Client& c) {
    json::Object p = json::object();
    p->set("signWith", address);
    p->set("payload", toHex(crypto::randomBytes(32)));  // a fresh body: no idempotent replay
    p->set("encoding", "PAYLOAD_ENCODING_HEXADECIMAL");
    p->set("hashFunction", "HASH_FUNCTION_NO_OP");
    auto a =
        c.submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", root.organizationId, p);
    if (a->getValue<std::string>("status") != "ACTIVITY_STATUS_COMPLETED") std::abort();
  };
  for (int i = 0; i < 20; ++i) signOnce(client);  // warm up

  std::cout << "sign_raw_payload over HTTP on loopback (SQLite, " << perThread
            << " requests per client thread)\n";
  for (int threads : {1, 2, 4}) {
    std::vector<std::thread> workers;
    auto start = Clock::now();
    for (int t = 0; t < threads; ++t)
      workers.emplace_back([&] {
        Client c(base, stamper);
        for (int i = 0; i < perThread; ++i) signOnce(c);
      });
    for (auto& w : workers) w.join();
    double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    std::cout << "  " << threads << " client thread(s): " << (threads * perThread) / seconds
              << " requests/s\n";
  }

  // The floor: what every request must compute, on one core.
  auto costs = bench::measureCryptoCosts();
  double verify = costs.verifyP256Us, sign = costs.signSecp256k1Us;
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::cout << "  crypto floor: P-256 verify " << verify << " us + secp256k1 sign " << sign
            << " us = " << 1e6 / (verify + sign) << " requests/s per core, "
            << cores * 1e6 / (verify + sign) << " on " << cores << " cores\n";

  server.stop();
  std::filesystem::remove_all(dir);
  return 0;
}
