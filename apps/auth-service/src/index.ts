export { createApp, SERVICE_NAME, type AppDeps } from './app';
export { readAuthConfig, type AuthConfig, type BootstrapClient } from './config';
export { openapi } from './openapi';
export { composeAuth, type AuthOverrides, type ComposedAuth } from './compose';
