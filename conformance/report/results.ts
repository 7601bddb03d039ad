/**
 * Moved to spec/results.ts (the run report's one home, shared by the server suite and the client
 * harness). This re-export keeps in-flight imports working; import from spec/results.ts.
 */
export * from '../../spec/results.ts';
