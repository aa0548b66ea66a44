#!/usr/bin/python3
"""schema_check.py SCHEMA.json DOC.json... - DOC against the subset of JSON
Schema that docs/schema/ uses (type, const, enum, required, properties,
additionalProperties false, items, $ref to $defs, minimum, maximum).
Prints "P schema NAME: ..." or "F schema NAME: where and what"."""
import json
import os
import sys

TYPES = {'object': dict, 'array': list, 'string': str, 'boolean': bool, 'null': type(None)}


def check(schema, v, s, path):
    if '$ref' in s:
        s = {**schema['$defs'][s['$ref'].split('/')[-1]], **{k: x for k, x in s.items() if k != '$ref'}}
    t = s.get('type')
    if t:
        ok = False
        for ty in (t if isinstance(t, list) else [t]):
            if ty == 'integer':
                ok |= isinstance(v, int) and not isinstance(v, bool)
            elif ty == 'number':
                ok |= isinstance(v, (int, float)) and not isinstance(v, bool)
            else:
                ok |= isinstance(v, TYPES[ty])
        if not ok:
            return '%s: %r is not %s' % (path, v, t)
    if 'const' in s and v != s['const']:
        return '%s: %r is not %r' % (path, v, s['const'])
    if 'enum' in s and v not in s['enum']:
        return '%s: %r is not one of %s' % (path, v, s['enum'])
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        if 'minimum' in s and v < s['minimum']:
            return '%s: %r < %r' % (path, v, s['minimum'])
        if 'maximum' in s and v > s['maximum']:
            return '%s: %r > %r' % (path, v, s['maximum'])
    if isinstance(v, dict):
        for r in s.get('required', []):
            if r not in v:
                return '%s: no "%s"' % (path, r)
        props = s.get('properties', {})
        if s.get('additionalProperties') is False:
            for k in v:
                if k not in props:
                    return '%s: "%s" is not in the schema' % (path, k)
        for k, sub in props.items():
            if k in v:
                e = check(schema, v[k], sub, path + '.' + k)
                if e:
                    return e
    if isinstance(v, list) and 'items' in s:
        for i, x in enumerate(v):
            e = check(schema, x, s['items'], '%s[%d]' % (path, i))
            if e:
                return e
    return None


def main():
    schema = json.load(open(sys.argv[1]))
    for doc in sys.argv[2:]:
        try:
            e = check(schema, json.load(open(doc)), schema, '$')
        except ValueError as x:
            e = 'not JSON: %s' % x
        name = os.path.basename(sys.argv[1])
        print('F schema %s: %s: %s' % (name, doc, e) if e else 'P schema %s: %s follows it' % (name, doc))


main()
