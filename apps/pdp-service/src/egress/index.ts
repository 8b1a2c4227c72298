export { EgressPolicy, EgressConfigError } from './policy';
export { activeEgressPolicy, egressRefusal, EgressRefused, guardedLookup } from './guard';
export { isLinkLocal, isPublic, toAddress, type Address } from './addresses';
