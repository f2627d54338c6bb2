/**
 * @toolhub/arguments — tool-argument validation and repair before a run: each tool version's JSON
 * Schema compiled once (Ajv; draft-07, 2019-09, 2020-12), safe repairs applied and reported, the
 * rest rejected as invalid_argument with every field's problem, expected type and an example.
 */
export { ArgumentValidator, type ArgumentValidatorStats, type RepairResult } from './validator';
export { type ArgumentValidatorOptions, type ResolvedArgumentValidatorOptions, type SchemaDialect, withDefaults } from './options';
export { findSchemaCompileError, SchemaCompileError, type SchemaProblem, type SchemaProblemCode } from './errors';
export { isPathLikeName, normalisePath } from './paths';
export { describeSchema, exampleFor } from './describe';
