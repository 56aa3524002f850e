/** @cordon/shared — the contract shared by API, resolver, CLI and console. Pure TypeScript, no I/O. */
export * from './categories.ts';
export * from './constants.ts';
export * from './endpoints/index.ts';
export * from './errors.ts';
export * from './messages.ts';
export * from './net.ts';
export * from './outcome.ts';
export * from './roles.ts';
export * from './schemas/auth.ts';
export * from './schemas/common.ts';
export * from './schemas/customer.ts';
export * from './schemas/location.ts';
export * from './schemas/msp.ts';
export * from './schemas/policy.ts';
export * from './schemas/stats.ts';
export * from './stats.ts';
