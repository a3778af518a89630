// Tiny DOM builders. Text always goes in as text nodes: nothing from a plan file is parsed as HTML.

const SVG_NS = 'http://www.w3.org/2000/svg';

function build(element, attrs, children) {
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') element.addEventListener(key.slice(2), value);
    else if (key === 'class') element.setAttribute('class', Array.isArray(value) ? value.filter(Boolean).join(' ') : value);
    else element.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

/** An HTML element: h('p', { class: 'x', onclick: fn }, 'text', otherNode). */
export const h = (tag, attrs, ...children) => build(document.createElement(tag), attrs, children);

/** An SVG element. */
export const s = (tag, attrs, ...children) => build(document.createElementNS(SVG_NS, tag), attrs, children);

/** Replace the children of `parent`. */
export function replace(parent, ...children) {
  parent.replaceChildren();
  build(parent, {}, children);
  return parent;
}

/** A titled section, or nothing when it would be empty. */
export function section(title, ...children) {
  const content = children.flat(Infinity).filter((c) => c !== undefined && c !== null && c !== false);
  return content.length === 0 ? null : h('section', { class: 'card' }, h('h2', {}, title), content);
}

/** A bulleted list of strings, or null when there are none. */
export const list = (items, attrs = {}) => (items && items.length > 0 ? h('ul', attrs, items.map((i) => h('li', {}, i))) : null);
