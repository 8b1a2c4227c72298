// The pure rules (addresses, PDP_CALL_ALLOW, URL checks) live in service-kit, shared with pap's registration warning.
export { activeEgressPolicy, EgressRefused, guardedLookup } from './guard';
