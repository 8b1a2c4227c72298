export * from './wait';
export * from './database';
export * from './nats';
export * from './authority';
export * from './processes';
export * from './nats-server';
export * from './stack';
export * from './http';
