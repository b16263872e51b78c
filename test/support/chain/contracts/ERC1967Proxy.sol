// Vendored unchanged from https://github.com/erc-8004/erc-8004-contracts (the original file starts at the SPDX line):
// contracts/ERC1967Proxy.sol at commit b9e466c250744a7e06b13dff9d3c2844ed64f825 (MIT licence, as its SPDX line says).
// Test-only: compiled with solc-js and deployed on the local ganache chain (test/support/chain/erc8004.ts).
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "@openzeppelin/contracts/proxy/ERC1967/ERC1967Proxy.sol" as OZProxy;

// This contract just re-exports OpenZeppelin's ERC1967Proxy
// so it can be compiled and used in our tests and deployment scripts
contract ERC1967Proxy is OZProxy.ERC1967Proxy {
    constructor(address implementation, bytes memory _data) OZProxy.ERC1967Proxy(implementation, _data) {}
}
