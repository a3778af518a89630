// Plain HTTP requests with full control over Host, Origin and Cookie (fetch would set some itself).
import { request as httpRequest } from 'node:http';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json(): any;
}

export function request(url: string, { method = 'GET', headers = {}, body }: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, json: () => JSON.parse(text) });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`Expected an answer to ${method} ${url} within 10 s.`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Open a server-sent event stream and collect its events until `stop`. */
export function eventStream(url: string, headers: Record<string, string>) {
  const events: Array<{ event: string; data: string }> = [];
  let buffer = '';
  let status = 0;
  const req = httpRequest(url, { headers }, (res) => {
    status = res.statusCode ?? 0;
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event) events.push({ event, data: data ?? '' });
      }
    });
  });
  req.on('error', () => {}); // destroyed by stop()
  req.end();
  return { events, status: () => status, stop: () => req.destroy() };
}
