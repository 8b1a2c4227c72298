"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const convert_1 = require("../src/decision/convert");
const log_1 = require("../src/decision/log");
describe('event conversion', () => {
    it('makes the action URN from either form of actionId', () => {
        expect((0, convert_1.actionOf)({ scope: 'acme', action: 'show-employee' })).toEqual({ urn: 'urn:action:acme:show-employee', solution: 'acme' });
        expect((0, convert_1.actionOf)({ urn: 'urn:action:acme.eu:Show_1' })).toEqual({ urn: 'urn:action:acme.eu:Show_1', solution: 'acme.eu' });
        expect((0, convert_1.actionOf)({ urn: 'urn:policy:acme:x' })).toBeUndefined();
    });
    it('decodes parameter values: complex JSON text is parsed, anything else is kept', () => {
        expect((0, convert_1.parameterValue)({ value: '{"id":"u1","tags":[1,2]}', type: 'com.acme.User', isComplex: true })).toEqual({ id: 'u1', tags: [1, 2] });
        expect((0, convert_1.parameterValue)({ value: '[1,"a"]', type: 'java.util.List', isComplex: true })).toEqual([1, 'a']);
        expect((0, convert_1.parameterValue)({ value: '{not json', type: 'com.acme.User', isComplex: true })).toBe('{not json');
        expect((0, convert_1.parameterValue)({ value: '{"id":1}', type: 'java.lang.String', isComplex: false })).toBe('{"id":1}');
        expect((0, convert_1.parameterValue)({ value: { id: 'u1' }, type: 'com.acme.User', isComplex: true })).toEqual({ id: 'u1' });
        expect((0, convert_1.parameterValue)({ value: 1200, type: 'java.lang.Integer', isComplex: false })).toBe(1200);
        expect((0, convert_1.parameterValue)({ value: null, type: 'java.lang.Object', isComplex: false })).toBeNull();
    });
    it('builds the engine event with a map of parameters', () => {
        const event = (0, convert_1.toEngineEvent)({
            actionId: { scope: 'acme', action: 'show' },
            timestamp: 1763798400000,
            parameters: [
                { name: 'user', value: { value: '{"name":{"firstName":"Ann"}}', type: 'com.acme.User', isComplex: true } },
                { name: 'amount', value: { value: 1200, type: 'java.lang.Integer', isComplex: false } },
            ],
        }, 'urn:action:acme:show');
        expect(event.action).toBe('urn:action:acme:show');
        expect(event.timestamp).toBe(1763798400000);
        expect([...event.parameters]).toEqual([
            ['user', { name: { firstName: 'Ann' } }],
            ['amount', 1200],
        ]);
        expect((0, convert_1.toEngineEvent)({ actionId: { urn: 'urn:action:a:b' }, timestamp: 0 }, 'urn:action:a:b').parameters.size).toBe(0);
    });
    it('finds repeated parameter names with their paths', () => {
        const value = { value: 1, type: 'java.lang.Integer', isComplex: false };
        expect((0, convert_1.duplicateParameters)(undefined)).toEqual([]);
        expect((0, convert_1.duplicateParameters)([{ name: 'a', value }, { name: 'b', value }])).toEqual([]);
        expect((0, convert_1.duplicateParameters)([{ name: 'a', value }, { name: 'b', value }, { name: 'a', value }, { name: 'a', value }])).toEqual([
            { path: 'parameters[2].name', message: 'repeats the name of parameters[0]' },
            { path: 'parameters[3].name', message: 'repeats the name of parameters[0]' },
        ]);
    });
});
describe('nesting depth of parameter values', () => {
    const nested = (depth, make = (inner) => [inner]) => {
        let value = 1;
        for (let level = 0; level < depth; level += 1)
            value = make(value);
        return value;
    };
    it('counts arrays and objects, not scalars', () => {
        expect((0, convert_1.nestsDeeperThan)('text', 0)).toBe(false);
        expect((0, convert_1.nestsDeeperThan)(null, 0)).toBe(false);
        expect((0, convert_1.nestsDeeperThan)([], 0)).toBe(true);
        expect((0, convert_1.nestsDeeperThan)(nested(3), 3)).toBe(false);
        expect((0, convert_1.nestsDeeperThan)(nested(4), 3)).toBe(true);
        expect((0, convert_1.nestsDeeperThan)(nested(4, (inner) => ({ a: inner })), 3)).toBe(true);
        expect((0, convert_1.nestsDeeperThan)({ a: [1, { b: 2 }], c: 'x' }, 3)).toBe(false);
        expect((0, convert_1.nestsDeeperThan)({ a: [1, { b: [] }], c: 'x' }, 3)).toBe(true);
    });
    it('handles 100,000 levels without recursion', () => {
        const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000));
        expect((0, convert_1.nestsDeeperThan)(deep, convert_1.MAX_VALUE_DEPTH)).toBe(true);
    });
    it('locates each parameter that nests too deeply, after complex JSON text is decoded', () => {
        const event = (0, convert_1.toEngineEvent)({
            actionId: { scope: 'acme', action: 'x' },
            timestamp: 0,
            parameters: [
                { name: 'ok', value: { value: nested(convert_1.MAX_VALUE_DEPTH), type: 'x', isComplex: true } },
                { name: 'deep', value: { value: nested(convert_1.MAX_VALUE_DEPTH + 1), type: 'x', isComplex: true } },
                { name: 'text', value: { value: JSON.stringify(nested(500)), type: 'x', isComplex: true } },
                { name: 'plain', value: { value: JSON.stringify(nested(500)), type: 'x', isComplex: false } },
            ],
        }, 'urn:action:acme:x');
        expect((0, convert_1.overlyDeepParameters)(event.parameters)).toEqual([
            { path: 'parameters[1].value.value', message: `is nested deeper than ${convert_1.MAX_VALUE_DEPTH} levels` },
            { path: 'parameters[2].value.value', message: `is nested deeper than ${convert_1.MAX_VALUE_DEPTH} levels` },
        ]);
    });
});
describe('Java type mapping', () => {
    it.each([
        ['a string', 'x', 'java.lang.String', false],
        ['a number', 1.5, 'java.lang.Double', false],
        ['an integral number', 100, 'java.lang.Double', false],
        ['true', true, 'java.lang.Boolean', false],
        ['false', false, 'java.lang.Boolean', false],
        ['an object', { mode: 'half' }, 'java.lang.Object', true],
        ['a list', [1, 2], 'java.util.ArrayList', true],
        ['null', null, 'java.lang.Object', false],
    ])('types %s', (_what, value, type, isComplex) => {
        expect((0, convert_1.javaValue)(value)).toEqual({ value, type, isComplex });
    });
    it('sends an absent value as null', () => {
        expect((0, convert_1.javaValue)(undefined)).toEqual({ value: null, type: 'java.lang.Object', isComplex: false });
    });
    it('turns engine modifiers into wire modifiers with one engine each', () => {
        expect((0, convert_1.toModifier)({
            policyId: 'urn:policy:acme:p',
            eventParameter: 'user',
            expression: '$.name.firstName',
            method: 'append',
            parameters: [
                { name: 'suffix', value: ' (masked)' },
                { name: 'steps', value: [1, 2] },
            ],
            reason: 'privacy',
        })).toEqual({
            name: 'user',
            expression: '$.name.firstName',
            engine: [
                {
                    method: 'append',
                    parameters: [
                        { name: 'suffix', value: { value: ' (masked)', type: 'java.lang.String', isComplex: false } },
                        { name: 'steps', value: { value: [1, 2], type: 'java.util.ArrayList', isComplex: true } },
                    ],
                },
            ],
        });
    });
    it('answers an AuthorizationDecision; an inhibited one has no modifiers', () => {
        const modifier = { policyId: 'p', eventParameter: 'x', expression: '$', method: 'delete', parameters: [], reason: null };
        const base = {
            allowed: true,
            decided: true,
            modifiers: [modifier],
            delayMs: 250,
            executions: [],
            matchedPolicies: ['p'],
            errors: [],
        };
        expect((0, convert_1.toAuthorizationDecision)('urn:decision:1', base)).toEqual({
            id: { identifier: 'urn:decision:1' },
            eventAllowed: true,
            modifiers: [{ name: 'x', expression: '$', engine: [{ method: 'delete', parameters: [] }] }],
            delay: 250,
        });
        expect((0, convert_1.toAuthorizationDecision)('urn:decision:2', { ...base, allowed: false })).toMatchObject({ eventAllowed: false, modifiers: [], delay: 250 });
    });
});
describe('decision log', () => {
    it('blanks quoted user values in error messages', () => {
        expect((0, log_1.withoutValues)('cannot compare `secret value` with `42`')).toBe('cannot compare `…` with `…`');
        expect((0, log_1.withoutValues)('division by zero')).toBe('division by zero');
    });
});
//# sourceMappingURL=convert.test.js.map