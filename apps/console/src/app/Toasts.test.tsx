import { cleanNotifications, notifications } from '@mantine/notifications';
import { prerender } from 'react-dom/static';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Toasts } from './Toasts.tsx';

/** How many times the container's module was loaded: the mock stands for Mantine's container. */
const loaded = vi.hoisted(() => ({ count: 0 }));
vi.mock('./ToastContainer.tsx', () => {
  loaded.count += 1;
  return { default: () => <output>toast container</output> };
});

/** The HTML of `<Toasts />` once every lazy part has loaded (prerender waits for Suspense). */
async function html(): Promise<string> {
  const { prelude } = await prerender(<Toasts />);
  return new Response(prelude).text();
}

afterEach(() => {
  cleanNotifications();
});

describe('the toasts container, loaded with the first toast (bench/README.md "Console first load")', () => {
  it('is neither fetched nor rendered while no toast was shown, then renders once one is', async () => {
    expect(await html()).not.toContain('toast container');
    expect(loaded.count).toBe(0);

    notifications.show({ id: 'success:Saved', message: 'Saved' });
    expect(await html()).toContain('<output>toast container</output>');
    expect(loaded.count).toBe(1);
  });
});
