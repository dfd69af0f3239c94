/**
 * What a person does in a browser for `dpgw login --grant device` on a real Keycloak: open
 * the verification address (with the code), sign in on Keycloak's own login page, and
 * grant access on its consent page when one is shown. Forms are found in the pages'
 * HTML and posted with the cookies Keycloak set, as a browser would.
 */
export async function approveDeviceInBrowser(verificationUriComplete: string, username: string, password: string, decision: 'accept' | 'deny' = 'accept'): Promise<string> {
  const cookies = new Map<string, string>();
  const go = async (url: string, form?: URLSearchParams): Promise<{ url: string; html: string }> => {
    for (let hops = 0; hops < 10; hops++) {
      const response = await fetch(url, {
        method: form ? 'POST' : 'GET',
        redirect: 'manual',
        headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        body: form,
      });
      for (const line of response.headers.getSetCookie()) {
        const pair = line.split(';')[0]!;
        const equals = pair.indexOf('=');
        cookies.set(pair.slice(0, equals), pair.slice(equals + 1));
      }
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        url = new URL(location, url).toString();
        form = undefined;
        continue;
      }
      return { url, html: await response.text() };
    }
    throw new Error(`too many redirects from ${url}`);
  };
  const formOf = (page: { url: string; html: string }) => {
    const action = /<form[^>]*action="([^"]+)"/i.exec(page.html)?.[1];
    if (!action) return undefined;
    return new URL(action.replace(/&amp;/g, '&'), page.url).toString();
  };
  let page = await go(verificationUriComplete);
  for (let step = 0; step < 6; step++) {
    const action = formOf(page);
    if (!action) return page.html;
    if (/name="password"/i.test(page.html)) page = await go(action, new URLSearchParams({ username, password }));
    else if (/name="device_user_code"|name="user_code"/i.test(page.html)) {
      const code = new URL(verificationUriComplete).searchParams.get('user_code') ?? '';
      page = await go(action, new URLSearchParams({ device_user_code: code }));
    } else if (/name="accept"|id="kc-login"|name="cancel"/i.test(page.html)) page = await go(action, new URLSearchParams(decision === 'accept' ? { accept: 'Yes' } : { cancel: 'No' }));
    else return page.html;
  }
  return page.html;
}
