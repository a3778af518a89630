type JsonObject = Record<string, unknown>;

/**
 * A compact, JSON-like picture of what a JSON Schema accepts, one line per variant of a
 * top-level union: `{"type":"answer","content":string}`. `?` marks optional fields. Nesting is
 * cut (`{…}`) until the picture fits in `maxLength`, so a huge schema never floods a prompt.
 */
export function describeShape(schema: unknown, maxLength = 1500): string {
  const root = isObject(schema) ? schema : {};
  const variants = Array.isArray(root.anyOf) ? root.anyOf : Array.isArray(root.oneOf) ? root.oneOf : [root];
  let shape = '';
  for (let depth = 4; depth >= 1; depth--) {
    shape = variants.map((variant) => render(variant, root, depth)).join('\n');
    if (shape.length <= maxLength) return shape;
  }
  return `${shape.slice(0, maxLength - 1)}…`;
}

function render(schema: unknown, root: JsonObject, depth: number): string {
  if (!isObject(schema)) return 'any';
  if (typeof schema.$ref === 'string')
    return depth > 0 ? render(resolveRef(schema.$ref, root), root, depth - 1) : '…';
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join('|');
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) return union.map((option) => render(option, root, depth)).join(' | ');
  if (schema.type === 'array') return `[${render(schema.items, root, depth)}]`;
  if (isObject(schema.properties)) return renderObject(schema.properties, schema.required, root, depth);
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return schema.type.join('|');
  return 'any';
}

function renderObject(properties: JsonObject, required: unknown, root: JsonObject, depth: number): string {
  if (depth <= 0) return '{…}';
  const requiredNames = Array.isArray(required) ? required : [];
  const fields = Object.entries(properties).map(([name, property]) => {
    const optional = requiredNames.includes(name) ? '' : '?';
    return `${JSON.stringify(name)}${optional}:${render(property, root, depth - 1)}`;
  });
  return `{${fields.join(',')}}`;
}

/** Local references only (`#/$defs/Step`); anything else renders as `any`. */
function resolveRef(ref: string, root: JsonObject): unknown {
  if (!ref.startsWith('#')) return undefined;
  return ref
    .slice(1)
    .split('/')
    .filter(Boolean)
    .reduce<unknown>((node, key) => (isObject(node) ? node[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), root);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
