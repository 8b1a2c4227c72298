export { startEmbedded, DEFAULT_DATA_DIR, type EmbeddedCustos } from './compose';
export { startEmbeddedPostgres, type EmbeddedPostgres } from './database';
