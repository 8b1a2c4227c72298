export { composePap, type ComposedPap, type PapOverrides } from './compose';
export { readPapConfig, type PapConfig } from './config';
export { SERVICE_NAME } from './app';
