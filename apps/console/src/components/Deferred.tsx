import { ComboboxChevron, InputBase, type ModalProps, type SelectProps, type TooltipProps } from '@mantine/core';
import { type ReactElement, useEffect, useRef, useState, useSyncExternalStore } from 'react';

type Overlays = typeof import('./overlays.ts');

let overlays: Overlays | null = null;
let loading: Promise<Overlays> | null = null;
const listeners = new Set<() => void>();

/**
 * Starts loading Mantine's overlay components (`overlays.ts`) once; every deferred component
 * renders the real one as soon as they are in. A failed fetch is forgotten, so the next intent
 * tries again.
 * @returns the module (rejects when it cannot be fetched)
 */
export function loadOverlays(): Promise<Overlays> {
  loading ??= import('./overlays.ts').then(
    (m) => {
      overlays = m;
      for (const listener of listeners) listener();
      return m;
    },
    (error: unknown) => {
      loading = null;
      throw error;
    },
  );
  return loading;
}

/** {@link loadOverlays} for an event handler: a failure leaves the stand-in in place until the next intent. */
function want(): void {
  loadOverlays().catch(() => undefined);
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** The overlay components once loaded, else null; re-renders when they arrive. */
function useOverlays(): Overlays | null {
  return useSyncExternalStore(
    subscribe,
    () => overlays,
    () => overlays,
  );
}

/** An entry of a Select's `data`: a value, an item, or a group of them. */
type OptionEntry = string | { value?: string; label?: string; items?: readonly OptionEntry[] };

/** The label of `value` among a Select's `data` (values, items or groups of them); '' when absent. */
export function optionLabel(data: readonly OptionEntry[] | undefined, value: string | null | undefined): string {
  if (value == null || !data) return '';
  for (const entry of data) {
    if (typeof entry === 'string') {
      if (entry === value) return entry;
    } else if (entry.items) {
      const found = optionLabel(entry.items, value);
      if (found !== '') return found;
    } else if (entry.value === value) return entry.label ?? entry.value;
  }
  return '';
}

/** A Select's props, with the test id Mantine passes on to its input. */
export type DeferredSelectProps = SelectProps & { 'data-testid'?: string };

/**
 * A Mantine Select whose combobox code loads on the first intent to use it (pointer over it, focus,
 * touch): until then an input of the same look (same Input styles, value, placeholder, chevron and
 * size; `role="combobox"`, closed). A press, click or opening key before the code is in opens the
 * list once it is; focus moves to the real input if the stand-in had it. Its props are Select's.
 */
export function DeferredSelect(props: DeferredSelectProps) {
  const loaded = useOverlays();
  const intent = useRef({ open: false, focus: false });
  // A clearable select with a value shows its clear button, which the stand-in does not draw: the
  // real one is fetched at once then (list filters set from the address, never on an overview).
  const clearShown = props.clearable === true && props.value != null;
  useEffect(() => {
    if (clearShown) want();
  }, [clearShown]);
  if (loaded) {
    const { open, focus } = intent.current;
    return <loaded.Select {...props} {...(open ? { defaultDropdownOpened: true } : {})} autoFocus={focus} />;
  }
  const opening = () => {
    if (props.disabled || props.readOnly) return;
    intent.current.open = true;
    props.onDropdownOpen?.();
    want();
  };
  const value = props.searchValue ?? optionLabel(props.data, props.value ?? props.defaultValue);
  return (
    <InputBase
      readOnly
      pointer={!props.searchable}
      value={intent.current.open && props.searchable ? '' : value}
      role="combobox"
      aria-haspopup="listbox"
      aria-expanded={false}
      aria-label={props['aria-label']}
      data-testid={props['data-testid']}
      {...(props.label === undefined ? {} : { label: props.label })}
      {...(props.description === undefined ? {} : { description: props.description })}
      {...(props.error === undefined ? {} : { error: props.error })}
      {...(props.placeholder === undefined ? {} : { placeholder: props.placeholder })}
      {...(props.size === undefined ? {} : { size: props.size })}
      {...(props.w === undefined ? {} : { w: props.w })}
      {...(props.required === undefined ? {} : { required: props.required })}
      {...(props.disabled === undefined ? {} : { disabled: props.disabled })}
      {...(props.id === undefined ? {} : { id: props.id })}
      rightSection={props.rightSection ?? <ComboboxChevron size={props.size ?? 'sm'} error={props.error} />}
      rightSectionPointerEvents="none"
      onPointerEnter={want}
      onTouchStart={want}
      onFocus={() => {
        intent.current.focus = true;
        want();
      }}
      onBlur={() => {
        intent.current.focus = false;
      }}
      // The press opens, not only the click: when the code arrives between the press and the
      // release, the stand-in is gone before its click, which the browser then sends to no input.
      onPointerDown={opening}
      onClick={opening}
      onKeyDown={(event) => {
        if (event.key === 'Enter' || event.key === ' ' || event.key === 'ArrowDown' || event.key === 'ArrowUp') {
          event.preventDefault();
          opening();
        }
      }}
    />
  );
}

/**
 * A Mantine Modal that fetches its code when first opened (nothing is rendered before), then stays
 * mounted so its closing transition plays. Its props are Modal's.
 */
export function DeferredModal(props: ModalProps) {
  const loaded = useOverlays();
  const [shown, setShown] = useState(false);
  useEffect(() => {
    if (!props.opened) return;
    setShown(true);
    want();
  }, [props.opened]);
  if (!loaded || !(shown || props.opened)) return null;
  return <loaded.Modal {...props} />;
}

/**
 * A Mantine Tooltip whose code loads when the pointer enters or focus reaches its target: until
 * then the target alone (its `aria-label` names it meanwhile), then the tooltip, shown at once for
 * the target that asked (focus kept on it). Its props are Tooltip's; `children` one element.
 */
export function DeferredTooltip({ children, ...props }: TooltipProps & { children: ReactElement }) {
  const loaded = useOverlays();
  const wrapper = useRef<HTMLSpanElement>(null);
  const intent = useRef<'pointer' | 'focus' | null>(null);
  // The target is a new element once the tooltip wraps it: focus goes back to it.
  useEffect(() => {
    if (loaded && intent.current === 'focus') wrapper.current?.querySelector<HTMLElement>('a, button')?.focus();
  }, [loaded]);
  return (
    <span
      ref={wrapper}
      style={{ display: 'contents' }}
      {...(loaded
        ? {}
        : {
            onPointerEnter: () => {
              intent.current = 'pointer';
              want();
            },
            onFocus: () => {
              intent.current = 'focus';
              want();
            },
          })}
    >
      {loaded ? (
        <loaded.Tooltip {...props} {...(intent.current ? { defaultOpened: true } : {})}>
          {children}
        </loaded.Tooltip>
      ) : (
        children
      )}
    </span>
  );
}
