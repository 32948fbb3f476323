// Hardhat's network for the broadcast tests (chains.mjs starts `hardhat node` with it): a chain
// id from the public API's list, and Prague, so that EIP-7702 delegation works.
module.exports = {
  networks: { hardhat: { chainId: 11155111, hardfork: "prague", mining: { auto: true, interval: 0 } } },
};
