type JsonObject = Record<string, unknown>;

/** What a turn's answer looks like, as its request states it (once): the shapes and an example of each. */
export interface OutputFormat {
  /** One line per variant (describeShape). */
  readonly shape: string;
  /** One JSON line per variant that carries an example (describeExamples). */
  readonly examples: readonly string[];
}

/** The shapes and examples of a JSON Schema, both read from it so they cannot drift from the parser. */
export function describeFormat(schema: unknown, maxLength?: number): OutputFormat {
  return { shape: describeShape(schema, maxLength), examples: describeExamples(schema) };
}

/**
 * A compact, JSON-like picture of what a JSON Schema accepts, one line per variant of a
 * top-level union: `{"type":"answer","content":string}`. `?` marks optional fields. Nesting is
 * cut (`{…}`) until the picture fits in `maxLength`, so a huge schema never floods a prompt.
 */
export function describeShape(schema: unknown, maxLength = 1500): string {
  const root = isObject(schema) ? schema : {};
  const variants = variantsOf(root);
  let shape = '';
  for (let depth = 4; depth >= 1; depth--) {
    shape = variants.map((variant) => render(variant, root, depth)).join('\n');
    if (shape.length <= maxLength) return shape;
  }
  return `${shape.slice(0, maxLength - 1)}…`;
}

/**
 * The first of each variant's `examples` (src/schemas/example.ts puts one there), as one line of
 * JSON per variant, in the order of describeShape's lines.
 */
export function describeExamples(schema: unknown): string[] {
  return variantsOf(isObject(schema) ? schema : {}).flatMap((variant) =>
    isObject(variant) && Array.isArray(variant.examples) && variant.examples.length > 0 ? [JSON.stringify(variant.examples[0])] : [],
  );
}

function variantsOf(root: JsonObject): unknown[] {
  return Array.isArray(root.anyOf) ? root.anyOf : Array.isArray(root.oneOf) ? root.oneOf : [root];
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
  if (schema.type === 'string' && typeof schema.maxLength === 'number') return `string(max ${schema.maxLength} chars)`;
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
