// Fuzz target: the signing plugin's parsers of untrusted input. The first byte picks one
// (Ethereum RLP transactions, Solana wire transactions, Tron Transaction.raw, Bitcoin PSBTs,
// Tempo transactions, an ABI with calldata, an Anchor IDL with instruction data); the rest
// is its input, and for the two that take a pair, the part before the first NUL is the
// interface. Each must refuse bad input with signet::Error, never crash, hang or throw
// anything else: every refusal reaches the client as a clear error, anything else would fail
// the request as an internal error.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "chains/bitcoin/bitcoin_psbt.hpp"
#include "chains/ethereum/abi.hpp"
#include "chains/ethereum/eth_transaction.hpp"
#include "chains/solana/solana_idl.hpp"
#include "chains/solana/solana_transaction.hpp"
#include "chains/tempo/tempo_transaction.hpp"
#include "chains/tron/tron_transaction.hpp"
#include "signet/error.hpp"

using namespace signet;
using namespace signing;

namespace {
const std::string kFrom = "0x" + std::string(40, 'a');

std::pair<std::string, Bytes> pair(const Bytes& input) {
  size_t nul = 0;
  while (nul < input.size() && input[nul] != 0) ++nul;
  std::string text(input.begin(), input.begin() + static_cast<long>(nul));
  Bytes rest(input.begin() + static_cast<long>(std::min(nul + 1, input.size())), input.end());
  return {text, rest};
}

void run(uint8_t which, const Bytes& input) {
  switch (which % 7) {
    case 0:
      ethTxFact(parseEthTransaction(input, "f"), kFrom);
      break;
    case 1:
      solanaTxFact(parseSolanaTransaction(input, "f"));
      break;
    case 2:
      tronTxFact(parseTronTransaction(input, "f"));
      break;
    case 3:
      bitcoinTxFact(parsePsbt(input, "f"), "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH");
      break;
    case 4:
      tempoTxFact(parseTempoTransaction(input, "f"), kFrom);
      break;
    case 5: {
      auto [abi, calldata] = pair(input);
      decodeCall(parseAbi(abi, "f"), calldata);
      break;
    }
    default: {
      auto [idl, data] = pair(input);
      decodeSolanaInstruction(parseSolanaIdl(idl, "f"), data, {"A", "B", "C"});
      break;
    }
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  Bytes input(data + 1, data + size);
  try {
    run(data[0], input);
  } catch (const Error&) {
    // a refusal, as intended
  } catch (...) {
    __builtin_trap();  // any other exception is a finding
  }
  return 0;
}
