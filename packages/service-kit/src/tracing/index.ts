export * from './tracing';
export * from './http';
