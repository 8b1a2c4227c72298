export { Admission, CHARS_PER_DECISION, NO_LIMITS, type AdmissionLimits, type Admitted } from './admission';
export { FairTurns, WorkSlices } from './fair-turns';
export { registerAdmissionMetrics } from './metrics';
