import { describe, expect, it } from 'vitest';
import { approvalStep } from '../src/approval';
import { crashText, isConnectionLoss } from '../src/crash';
import { baseUrlProblem, isKeyOf, normalizeBaseUrl, sameLaunch, secretName } from '../src/endpoint';

describe('the endpoint and its key', () => {
  it('normalizes a base URL, and refuses what is not one', () => {
    expect(normalizeBaseUrl(' HTTP://LocalHost:8000/v1/ ')).toBe('http://localhost:8000/v1');
    expect(normalizeBaseUrl('https://api.example.com')).toBe('https://api.example.com');
    for (const bad of ['', '   ', undefined, 'localhost:8000', 'ftp://x/v1', 'http://user:pw@x/v1', 'http://x/v1?k=1', 'not a url']) {
      expect(normalizeBaseUrl(bad)).toBeUndefined();
    }
    expect(baseUrlProblem('')).toMatch(/Enter the address/);
    expect(baseUrlProblem('http://u:p@x/v1')).toMatch(/without credentials/);
    expect(baseUrlProblem('http://localhost:8000/v1')).toBeUndefined();
  });

  it('stores a key under its endpoint: another endpoint has another name', () => {
    const a = normalizeBaseUrl('http://a.example/v1/') as string;
    const b = normalizeBaseUrl('http://b.example/v1') as string;
    expect(secretName(a)).toBe('surehand.apiKey:http://a.example/v1');
    expect(secretName(a)).not.toBe(secretName(b));
    expect(isKeyOf(secretName(a), a)).toBe(true);
    expect(isKeyOf(secretName(a), b)).toBe(false);
    expect(isKeyOf('surehand.apiKey', a)).toBe(false); // the unbound key of earlier versions is never used
    expect(isKeyOf(secretName(a), undefined)).toBe(false);
  });

  it('restarts the server when the interpreter, the endpoint or its key changed', () => {
    const launch = { python: '/env/bin/python', baseUrl: 'http://a/v1', apiKey: 'k' };
    expect(sameLaunch(launch, { ...launch })).toBe(true);
    expect(sameLaunch(launch, { ...launch, baseUrl: 'http://b/v1' })).toBe(false);
    expect(sameLaunch(launch, { ...launch, apiKey: undefined })).toBe(false);
    expect(sameLaunch(undefined, launch)).toBe(false);
  });
});

describe('a server that went away', () => {
  it('says how it ended and what became of the work', () => {
    expect(crashText({ code: null, signal: 'SIGKILL' }, 'task')).toBe(
      'surehand: the language server was killed (SIGKILL). The task was stopped and the conversation is lost.',
    );
    expect(crashText({ code: 1, signal: null }, 'review')).toMatch(/exited with code 1\. The proposal stays under review/);
    expect(crashText(undefined, 'idle')).toBe('surehand: the language server stopped. The conversation is lost.');
  });

  it('knows the requests that failed only because the connection went', () => {
    expect(isConnectionLoss(new Error('Pending response rejected since connection got disposed'))).toBe(true);
    expect(isConnectionLoss(new Error('Connection is closed.'))).toBe(true);
    expect(isConnectionLoss(new Error('Request surehand.ask failed with message: boom'))).toBe(false);
  });
});

describe('command approval', () => {
  it('says the command waits, not that it runs', () => {
    expect(approvalStep('surehand wants to run `rm -rf build` in a copy of the workspace.')).toBe(
      'waiting for your approval: rm -rf build',
    );
    expect(approvalStep('surehand wants to run `make` without a sandbox.')).toBe('waiting for your approval: make');
    expect(approvalStep('surehand proposes changes to a.py')).toBeUndefined();
  });
});
