#include "schema.hpp"

namespace signing {

std::vector<signet::Migration> migrations() {
  return {{1,
           "wallets, wallet accounts, private keys and their addresses",
           {"CREATE TABLE signing_wallets (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, "
            "name TEXT NOT NULL, exported INTEGER NOT NULL, imported INTEGER NOT NULL, "
            "created_at_ms BIGINT NOT NULL, updated_at_ms BIGINT NOT NULL)",
            "CREATE INDEX signing_wallets_organization ON signing_wallets (organization_id)",
            "CREATE TABLE signing_wallet_accounts (id TEXT PRIMARY KEY, organization_id TEXT NOT "
            "NULL, wallet_id TEXT NOT NULL, curve TEXT NOT NULL, path_format TEXT NOT NULL, path "
            "TEXT NOT NULL, address_format TEXT NOT NULL, address TEXT NOT NULL, public_key TEXT "
            "NOT NULL, name TEXT, exported INTEGER NOT NULL, created_at_ms BIGINT NOT NULL, "
            "updated_at_ms BIGINT NOT NULL)",
            "CREATE INDEX signing_accounts_wallet ON signing_wallet_accounts (wallet_id)",
            "CREATE INDEX signing_accounts_address ON signing_wallet_accounts (organization_id, "
            "address)",
            "CREATE TABLE signing_private_keys (id TEXT PRIMARY KEY, organization_id TEXT NOT "
            "NULL, name TEXT NOT NULL, curve TEXT NOT NULL, public_key TEXT NOT NULL, exported "
            "INTEGER NOT NULL, imported INTEGER NOT NULL, created_at_ms BIGINT NOT NULL, "
            "updated_at_ms BIGINT NOT NULL)",
            "CREATE INDEX signing_private_keys_organization ON signing_private_keys "
            "(organization_id)",
            "CREATE TABLE signing_private_key_addresses (private_key_id TEXT NOT NULL, "
            "organization_id TEXT NOT NULL, address_format TEXT NOT NULL, address TEXT NOT NULL, "
            "PRIMARY KEY (private_key_id, address_format))",
            "CREATE INDEX signing_private_key_addresses_address ON signing_private_key_addresses "
            "(organization_id, address)"}},
          {2,
           "private key tags",
           {"CREATE TABLE signing_private_key_tags (id TEXT PRIMARY KEY, organization_id TEXT NOT "
            "NULL, name TEXT NOT NULL, created_at_ms BIGINT NOT NULL, updated_at_ms BIGINT NOT "
            "NULL)",
            "CREATE UNIQUE INDEX signing_private_key_tags_name ON signing_private_key_tags "
            "(organization_id, name)",
            "CREATE TABLE signing_private_key_tag_members (tag_id TEXT NOT NULL, private_key_id "
            "TEXT NOT NULL, PRIMARY KEY (tag_id, private_key_id))"}},
          {3,
           "smart contract interfaces (ABIs and IDLs) by contract address",
           {"CREATE TABLE signing_contract_interfaces (id TEXT PRIMARY KEY, organization_id TEXT "
            "NOT NULL, address TEXT NOT NULL, address_key TEXT NOT NULL, type TEXT NOT NULL, "
            "interface_json TEXT NOT NULL, label TEXT NOT NULL, notes TEXT NOT NULL, "
            "created_at_ms BIGINT NOT NULL, updated_at_ms BIGINT NOT NULL)",
            "CREATE UNIQUE INDEX signing_contract_interfaces_address ON "
            "signing_contract_interfaces (organization_id, type, address_key)"}},
          {4,
           "sends to chain nodes, the next nonce of each sending account, sponsor keys, and "
           "gas sponsorship configurations and usage",
           {"CREATE TABLE signing_sends (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, "
            "billing_organization_id TEXT NOT NULL, caip2 TEXT NOT NULL, kind TEXT NOT NULL, "
            "request TEXT NOT NULL, status TEXT NOT NULL, signed_tx TEXT NOT NULL, tx_hash TEXT "
            "NOT NULL, sender TEXT NOT NULL, sender_nonce BIGINT NOT NULL, tx_error TEXT NOT "
            "NULL, error_json TEXT NOT NULL, attempts BIGINT NOT NULL, next_attempt_at_ms BIGINT "
            "NOT NULL, claimed_until_ms BIGINT NOT NULL, created_at_ms BIGINT NOT NULL, "
            "updated_at_ms BIGINT NOT NULL)",
            "CREATE INDEX signing_sends_due ON signing_sends (status, next_attempt_at_ms)",
            "CREATE INDEX signing_sends_organization ON signing_sends (organization_id)",
            "CREATE TABLE signing_send_nonces (caip2 TEXT NOT NULL, address TEXT NOT NULL, "
            "next_nonce BIGINT NOT NULL, PRIMARY KEY (caip2, address))",
            "CREATE TABLE signing_sponsors (family TEXT PRIMARY KEY, address TEXT NOT NULL, "
            "created_at_ms BIGINT NOT NULL)",
            "CREATE TABLE signing_gas_configs (organization_id TEXT PRIMARY KEY, id TEXT NOT "
            "NULL, org_limit_micros BIGINT NOT NULL, sub_org_limit_micros BIGINT NOT NULL, "
            "window_minutes BIGINT NOT NULL, enabled INTEGER NOT NULL, rent_prefund INTEGER NOT "
            "NULL, updated_at_ms BIGINT NOT NULL)",
            "CREATE TABLE signing_gas_usage (send_id TEXT PRIMARY KEY, organization_id TEXT NOT "
            "NULL, billing_organization_id TEXT NOT NULL, usd_micros BIGINT NOT NULL, at_ms "
            "BIGINT NOT NULL)",
            "CREATE INDEX signing_gas_usage_billing ON signing_gas_usage "
            "(billing_organization_id, at_ms)",
            "CREATE INDEX signing_gas_usage_organization ON signing_gas_usage (organization_id, "
            "at_ms)"}},
          {5,
           "secrets: their metadata; the values are sealed in the keyring (secrets.hpp)",
           {"CREATE TABLE signing_secrets (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, "
            "name TEXT, static_properties TEXT NOT NULL, created_at_ms BIGINT NOT NULL)",
            "CREATE INDEX signing_secrets_organization ON signing_secrets (organization_id, "
            "created_at_ms, id)",
            "CREATE UNIQUE INDEX signing_secrets_name ON signing_secrets (organization_id, name) "
            "WHERE name IS NOT NULL"}},
          {6,
           "transaction history: what the followers indexed, one row per address and "
           "transaction, and where each follower stands (broadcast/history.hpp)",
           {"CREATE TABLE signing_history (caip2 TEXT NOT NULL, address TEXT NOT NULL, tx_id TEXT "
            "NOT NULL, seq BIGINT NOT NULL, block_number BIGINT NOT NULL, item TEXT NOT NULL, "
            "PRIMARY KEY (caip2, address, tx_id))",
            "CREATE INDEX signing_history_order ON signing_history (caip2, address, seq, tx_id)",
            "CREATE INDEX signing_history_block ON signing_history (caip2, block_number)",
            "CREATE TABLE signing_history_cursors (caip2 TEXT NOT NULL, address TEXT NOT NULL, "
            "next_block BIGINT NOT NULL, last_id TEXT NOT NULL, finalized_block BIGINT NOT NULL, "
            "PRIMARY KEY (caip2, address))",
            // The listing marks what the gateway sent itself, by hash.
            "CREATE INDEX signing_sends_hash ON signing_sends (caip2, tx_hash)"}},
          {7,
           "addresses as signWith and list_suborgs look them up: by organization and address in "
           "any case (Ethereum's checksum case), and by address alone, without reading every "
           "account of the organization or of the store",
           {"CREATE INDEX signing_accounts_address_lower ON signing_wallet_accounts "
            "(organization_id, lower(address))",
            "CREATE INDEX signing_accounts_by_address ON signing_wallet_accounts (address)",
            "CREATE INDEX signing_private_key_addresses_lower ON signing_private_key_addresses "
            "(organization_id, lower(address))",
            "CREATE INDEX signing_private_key_addresses_by_address ON "
            "signing_private_key_addresses (address)"}}};
}

}  // namespace signing
