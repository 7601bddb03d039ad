/**
 * init's notes on the error answers a document declares (cli/init/error-shapes.ts): plain-JSON errors
 * are named with their statuses, FastAPI's default 422 is recognised with the switch its docs show,
 * and a document without any 429 is told how the window limiters are declared. Problem documents and
 * a declared 429 give no note.
 */
import { test, expect } from '@playwright/test';
import { errorShapeNotes } from '../init/error-shapes.ts';
import type { PathItem } from '../../conformance/openapi/document.ts';

const validationError = {
  title: 'HTTPValidationError',
  type: 'object',
  properties: {
    detail: { type: 'array', items: { type: 'object', properties: { loc: { type: 'array' }, msg: { type: 'string' }, type: { type: 'string' } } } },
  },
};

test("FastAPI's default 422 is named, with the exception handler its docs show, and no 429 gives the limiter hint", () => {
  const paths: Record<string, PathItem> = {
    '/items': {
      post: { responses: { '201': { content: { 'application/json': {} } }, '422': { content: { 'application/json': { schema: validationError } } } } },
    },
  };
  const notes = errorShapeNotes(paths);
  expect(notes).toHaveLength(2);
  expect(notes[0]).toContain('errors 422 are declared as application/json, not application/problem+json');
  expect(notes[0]).toContain('FastAPI\'s default validation answer');
  expect(notes[0]).toContain('RequestValidationError');
  expect(notes[1]).toContain('no operation declares a 429');
  expect(notes[1]).toContain('Flask-Limiter');
});

test('problem documents and a declared 429 give no note; another plain-JSON error is named without FastAPI', () => {
  const problem = { content: { 'application/problem+json': {} } };
  expect(errorShapeNotes({ '/a': { get: { responses: { '404': problem, '429': problem } } } })).toEqual([]);
  const notes = errorShapeNotes({ '/a': { get: { responses: { '404': { content: { 'application/json': {} } }, '429': problem } } } });
  expect(notes).toEqual([expect.stringContaining('errors 404 are declared as application/json')]);
  expect(notes[0]).not.toContain('FastAPI');
});
