// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// Signet's batch executor: the code an account delegates to with EIP-7702, so that a batch of
/// calls runs as one transaction from the account, paid by the account itself or by a sponsor.
///
/// The account's own transaction (to itself) needs nothing more. A sponsor's transaction carries
/// the account's EIP-712 signature over the calls, the account's executor nonce and a deadline,
/// so a sponsor can neither change, replay nor hold back a batch past its deadline.
///
/// The gateway's side of this contract is plugins/signing/broadcast/batch_executor.cpp; the two
/// must agree on the selectors, the typed data and the error below.
contract SignetBatchExecutor {
    struct Call {
        address to;
        uint256 value;
        bytes data;
    }

    /// Call `index` reverted with `reason` (its own revert data, passed on whole).
    error CallFailed(uint256 index, address to, bytes reason);
    error Expired(uint256 deadline);
    error BadSignature();

    bytes32 private constant CALL_TYPEHASH = keccak256("Call(address to,uint256 value,bytes data)");
    bytes32 private constant BATCH_TYPEHASH = keccak256(
        "BatchExecution(Call[] calls,uint256 nonce,uint256 deadline)Call(address to,uint256 value,bytes data)"
    );
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    // The code runs in the account's storage, which whatever it delegated to before may have
    // used too: the nonce lives in a slot derived from a name of our own (as ERC-7201 does).
    bytes32 private constant NONCE_SLOT = keccak256("signet.batch-executor.nonce");
    // secp256k1's n / 2: signatures with a higher s are refused (EIP-2).
    uint256 private constant HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    function nonce() public view returns (uint256 n) {
        bytes32 slot = NONCE_SLOT;
        assembly {
            n := sload(slot)
        }
    }

    function execute(Call[] calldata calls, uint256 deadline, bytes calldata signature) external payable {
        uint256 n = nonce();
        if (msg.sender != address(this)) {
            if (block.timestamp > deadline) revert Expired(deadline);
            if (recover(digest(calls, n, deadline), signature) != address(this)) revert BadSignature();
        }
        bytes32 slot = NONCE_SLOT;
        assembly {
            sstore(slot, add(n, 1))
        }
        for (uint256 i = 0; i < calls.length; ++i) {
            (bool ok, bytes memory reason) = calls[i].to.call{value: calls[i].value}(calls[i].data);
            if (!ok) revert CallFailed(i, calls[i].to, reason);
        }
    }

    /// The EIP-712 digest the account signs for a sponsored batch.
    function digest(Call[] calldata calls, uint256 n, uint256 deadline) public view returns (bytes32) {
        bytes32[] memory hashes = new bytes32[](calls.length);
        for (uint256 i = 0; i < calls.length; ++i) {
            hashes[i] = keccak256(abi.encode(CALL_TYPEHASH, calls[i].to, calls[i].value, keccak256(calls[i].data)));
        }
        bytes32 batch = keccak256(abi.encode(BATCH_TYPEHASH, keccak256(abi.encodePacked(hashes)), n, deadline));
        bytes32 domain = keccak256(
            abi.encode(DOMAIN_TYPEHASH, keccak256("SignetBatchExecutor"), keccak256("1"), block.chainid, address(this))
        );
        return keccak256(abi.encodePacked("\x19\x01", domain, batch));
    }

    function recover(bytes32 h, bytes calldata sig) private pure returns (address) {
        if (sig.length != 65) return address(0);
        bytes32 r = bytes32(sig[0:32]);
        bytes32 s = bytes32(sig[32:64]);
        uint8 v = uint8(sig[64]);
        if (uint256(s) > HALF_N) return address(0);
        if (v < 27) v += 27;
        return ecrecover(h, v, r, s);
    }

    /// A delegated account still receives plain transfers.
    receive() external payable {}
}
