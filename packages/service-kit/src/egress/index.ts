export { isLinkLocal, isPublic, toAddress, type IpAddress } from './addresses';
export { EgressConfigError, EgressPolicy } from './policy';
export { DEFAULT_EGRESS_POLICY, egressPortOf, egressRefusal, isLocalhostName, unconditionalRefusal } from './url-check';
