/** The store contract suite (tests/support/store-contract.ts) on the memory and Redis adapters. */
import { describeStoreContract } from './support/store-contract.ts';
import { adapters } from './stores-helpers.ts';

for (const adapter of adapters) describeStoreContract(adapter);
