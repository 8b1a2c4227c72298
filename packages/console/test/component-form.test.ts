import { componentOf, emptyInterface, parseParameterLines } from '../src/web/logic/component-form';

describe('parseParameterLines', () => {
  test('name, type and description; blank lines skipped', () => {
    expect(parseParameterLines('user: com.acme.User — the employee\n\n  id: java.lang.String  ', false)).toEqual([
      { name: 'user', type: 'com.acme.User', description: 'the employee' },
      { name: 'id', type: 'java.lang.String', description: '' },
    ]);
  });

  test('a `!` marks a PIP or PXP parameter mandatory', () => {
    expect(parseParameterLines('userId!: java.lang.String\nlocale: java.lang.String', true)).toEqual([
      { name: 'userId', type: 'java.lang.String', description: '', mandatory: true },
      { name: 'locale', type: 'java.lang.String', description: '', mandatory: false },
    ]);
  });

  test('any dash with spaces around it starts the description; the first one only', () => {
    const lines = [
      'a: com.acme.User - the employee',
      'b: com.acme.User -- the employee',
      'c: com.acme.User – the employee',
      'd: com.acme.User — the employee',
      'e: com.acme.User—the employee',
      'f:com.acme.User\t-\tthe employee',
    ];
    expect(parseParameterLines(lines.join('\n'), false)).toEqual(
      ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => ({ name, type: 'com.acme.User', description: 'the employee' })),
    );
    expect(parseParameterLines('g: java.lang.String - a name - or a nickname', false)).toEqual([
      { name: 'g', type: 'java.lang.String', description: 'a name - or a nickname' },
    ]);
  });

  test('a hyphen inside a word stays in the type, and a trailing dash gives an empty description', () => {
    expect(parseParameterLines('record: com.acme.user-record\nmap: java.util.Map<String, Object> -', false)).toEqual([
      { name: 'record', type: 'com.acme.user-record', description: '' },
      { name: 'map', type: 'java.util.Map<String, Object>', description: '' },
    ]);
  });

  test('a mandatory PIP parameter with a plain dash', () => {
    expect(parseParameterLines('userId!: java.lang.String - whose role', true)).toEqual([
      { name: 'userId', type: 'java.lang.String', description: 'whose role', mandatory: true },
    ]);
  });

  test('a line whose type is missing before the dash names its line', () => {
    expect(() => parseParameterLines('ok: x\nuser: - the employee', false)).toThrow('parameter line 2: expected `name: type - description`');
  });

  test('a line without a type names its line', () => {
    expect(() => parseParameterLines('ok: x\njust-a-name', false)).toThrow('parameter line 2');
  });
});

test('the README PEP from the form', () => {
  const component = componentOf({
    type: 'PEP',
    solution: ' acme ',
    name: 'hr-portal',
    urls: 'http://hr.acme.internal:9000/pep\n\n',
    interfaces: [
      {
        ...emptyInterface(),
        methodName: 'urn:action:acme:show-employee',
        description: 'an employee page',
        platform: 'web',
        context: 'hr',
        action: 'show-employee',
        parameters: 'user: com.acme.User — the employee',
      },
    ],
  });
  expect(component).toEqual({
    id: { componentType: 'PEP', identifier: 'urn:component:acme:pep:hr-portal' },
    urls: ['http://hr.acme.internal:9000/pep'],
    componentInterfaces: [
      {
        type: 'PepInterfaceDescription',
        event: { platform: 'web', context: 'hr', action: 'show-employee' },
        preventive: true,
        methodName: 'urn:action:acme:show-employee',
        returnType: 'void',
        description: 'an employee page',
        parameters: [{ name: 'user', type: 'com.acme.User', description: 'the employee' }],
      },
    ],
  });
});

test('a PIP has plain interfaces without an event', () => {
  const component = componentOf({
    type: 'PIP',
    solution: 'acme',
    name: 'hr',
    urls: 'http://hr/pip',
    interfaces: [{ ...emptyInterface(), methodName: 'urn:info:acme:getRole', returnType: 'java.lang.String', parameters: 'userId!: java.lang.String' }],
  });
  expect(component.id.identifier).toBe('urn:component:acme:pip:hr');
  expect(component.componentInterfaces[0]).toEqual({
    type: 'InterfaceDescription',
    methodName: 'urn:info:acme:getRole',
    returnType: 'java.lang.String',
    description: '',
    parameters: [{ name: 'userId', type: 'java.lang.String', description: '', mandatory: true }],
  });
});
