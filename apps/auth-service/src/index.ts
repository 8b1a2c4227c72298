// What tests outside this workspace may use (the security suite opens sealed keys with the real envelope).
export { createApp, SERVICE_NAME, type AppDeps } from './app';
export { readAuthConfig, type AuthConfig, type BootstrapClient } from './config';
export { openapi } from './openapi';
export { open as openSealedKey, operatorKey, sealedWith, SealError } from './keys/envelope';
export { composeAuth, type AuthOverrides, type ComposedAuth } from './compose';
