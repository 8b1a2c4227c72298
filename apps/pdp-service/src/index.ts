export { composePdp, type ComposedPdp, type PdpOverrides } from './compose';
export { readPdpConfig, type PdpConfig } from './config';
export { SERVICE_NAME } from './metrics';
