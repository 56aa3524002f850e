import { MantineProvider } from '@mantine/core';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { DeferredModal, DeferredSelect, optionLabel } from './Deferred.tsx';

const html = (node: React.ReactNode) => renderToString(<MantineProvider>{node}</MantineProvider>);

describe('optionLabel', () => {
  it('finds the label of a value among values, items and groups', () => {
    const data = [
      'plain',
      { value: 'fr', label: 'Français' },
      { group: 'Recent', items: [{ value: '7', label: 'Acme' }] },
    ];
    expect(optionLabel(data, 'plain')).toBe('plain');
    expect(optionLabel(data, 'fr')).toBe('Français');
    expect(optionLabel(data, '7')).toBe('Acme');
    expect(optionLabel(data, 'missing')).toBe('');
    expect(optionLabel(data, null)).toBe('');
  });
});

describe('DeferredSelect before its code is loaded', () => {
  it('is a closed, labelled combobox showing the chosen option, with no listbox yet', () => {
    const out = html(
      <DeferredSelect
        aria-label="Language"
        data={[
          { value: 'en', label: 'English' },
          { value: 'fr', label: 'Français' },
        ]}
        value="fr"
        data-testid="language-picker"
      />,
    );
    expect(out).toContain('role="combobox"');
    expect(out).toContain('aria-expanded="false"');
    expect(out).toContain('aria-label="Language"');
    expect(out).toContain('value="Français"');
    expect(out).toContain('data-testid="language-picker"');
    expect(out).not.toContain('role="listbox"');
  });
});

describe('DeferredModal', () => {
  it('renders nothing while it has never been opened', () => {
    const out = html(
      <DeferredModal opened={false} onClose={() => {}} title="Dialog title">
        Dialog body
      </DeferredModal>,
    );
    expect(out).not.toContain('Dialog title');
    expect(out).not.toContain('Dialog body');
    expect(out).not.toContain('role="dialog"');
  });
});
