export { Admission, NO_LIMITS, type AdmissionLimits, type Admitted } from './admission';
export { FairTurns, WorkSlices } from './fair-turns';
export { registerAdmissionMetrics } from './metrics';
