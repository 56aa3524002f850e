import {
  deviceEndpoints,
  deviceExceptionEndpoints,
  internalUserEndpoints,
  locationEndpoints,
  policyEndpoints,
} from '@cordon/shared';
import { keepPreviousData } from '@tanstack/react-query';
import { deleteItems, useBatchMutation } from '../../api/batch.ts';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';

/** The device list's sort keys the page offers (docs/api.md "Locations, devices, groups and users"). */
export type DeviceSortKey = 'name' | 'last_contact' | 'version' | 'os_type' | 'last_ip';

/** One page of the device list (spec-notes §9) and its narrowing (spec-notes §7: `policyid`, `location_id`). */
export interface DeviceListPage {
  limit: number;
  offset: number;
  sortkey: DeviceSortKey;
  sortdir: 'asc' | 'desc';
  filter: string;
  policyid?: number | undefined;
  location_id?: number | undefined;
}

/** `GET /users/{id}/devices` (spec-notes §7 Devices). */
export function useDevicesQuery(customerId: number, page: DeviceListPage) {
  return useEndpointQuery(
    deviceEndpoints.list,
    {
      params: { id: customerId },
      query: {
        limit: page.limit,
        offset: page.offset,
        sortkey: page.sortkey,
        sortdir: page.sortdir,
        ...(page.filter ? { filter: page.filter } : {}),
        ...(page.policyid !== undefined ? { policyid: page.policyid } : {}),
        ...(page.location_id !== undefined ? { location_id: page.location_id } : {}),
      },
    },
    { placeholderData: keepPreviousData },
  );
}

/** `GET /users/{id}/devices/{deviceId}` (spec-notes §7 Devices). */
export function useDeviceQuery(customerId: number, deviceId: number) {
  return useEndpointQuery(deviceEndpoints.get, { params: { id: customerId, deviceId } });
}

/** `POST /users/{id}/devices/{deviceId}` (spec-notes §7): details and configuration. */
export function useUpdateDeviceMutation(customerId: number, deviceId: number) {
  return useEndpointMutation(deviceEndpoints.update, {
    params: { id: customerId, deviceId },
    invalidates: ['device_exceptions'],
  });
}

/** `POST /users/{id}/devices/{deviceId}/config/advanced` (spec-notes §7): sets the JSON configuration. */
export function useSetDeviceAdvancedMutation(customerId: number, deviceId: number) {
  return useEndpointMutation(deviceEndpoints.setDeviceAdvanced, { params: { id: customerId, deviceId } });
}

/** `DELETE /users/{id}/devices/{deviceId}/config/advanced` (spec-notes §7): resets it, unlocking the details. */
export function useResetDeviceAdvancedMutation(customerId: number, deviceId: number) {
  return useEndpointMutation(deviceEndpoints.resetDeviceAdvanced, { params: { id: customerId, deviceId } });
}

/** Deletes devices as ONE `POST /batch` of `DELETE /users/{id}/devices/{deviceId}` (spec-notes §7 Batch). */
export function useDeleteDevicesMutation(customerId: number) {
  const batch = useBatchMutation({ invalidates: ['devices', 'device_exceptions'] });
  return {
    isPending: batch.isPending,
    run: (ids: readonly number[]) =>
      batch.mutateAsync(
        deleteItems(deviceEndpoints.remove, ids, (deviceId) => ({ params: { id: customerId, deviceId } })),
      ),
  };
}

/** `GET /users/{id}/devices/config` (spec-notes §7 Devices): install key and the customer's device configuration. */
export function useDeviceConfigQuery(customerId: number) {
  return useEndpointQuery(deviceEndpoints.getConfig, { params: { id: customerId } });
}

/** `POST /users/{id}/devices/config` (spec-notes §7: policy_id and device_exception_id). */
export function useUpdateDeviceConfigMutation(customerId: number) {
  return useEndpointMutation(deviceEndpoints.updateConfig, {
    params: { id: customerId },
    invalidates: ['device_exceptions'],
  });
}

/** `PUT /users/{id}/devices/key` (spec-notes §7 Customers): a new install key. */
export function useRegenerateInstallKeyMutation(customerId: number) {
  return useEndpointMutation(deviceEndpoints.regenerateKey, { params: { id: customerId } });
}

/** `POST /users/{id}/devices/config/advanced` (spec-notes §7): the customer's JSON configuration. */
export function useSetCustomerAdvancedMutation(customerId: number) {
  return useEndpointMutation(deviceEndpoints.setAdvanced, { params: { id: customerId } });
}

/** `DELETE /users/{id}/devices/config/advanced` (spec-notes §7): resets the customer's JSON configuration. */
export function useResetCustomerAdvancedMutation(customerId: number) {
  return useEndpointMutation(deviceEndpoints.resetAdvanced, { params: { id: customerId } });
}

/** `GET /policies?user_id=` without the default policy: the policy choices. */
export function usePolicyChoicesQuery(customerId: number) {
  return useEndpointQuery(policyEndpoints.list, {
    query: { user_id: customerId, limit: 1000, offset: 0, sortkey: 'name', sortdir: 'asc', show_default: 'false' },
  });
}

/** `GET /device_exceptions?user_id=`: the device-exception choices (spec-notes §7 Device exceptions). */
export function useExceptionChoicesQuery(customerId: number) {
  return useEndpointQuery(deviceExceptionEndpoints.list, {
    query: { user_id: customerId, limit: 1000, offset: 0, sortkey: 'name', sortdir: 'asc' },
  });
}

/** `GET /users/{id}/locations/all`: the location choices of the device list's filter (spec-notes §7 `location_id`). */
export function useLocationChoicesQuery(customerId: number) {
  return useEndpointQuery(locationEndpoints.list, {
    params: { id: customerId, type: 'all' },
    query: { limit: 1000, offset: 0, sortkey: 'name', sortdir: 'asc' },
  });
}

/** `GET /users/{id}/devices/{deviceId}/users` (docs/api.md "Device users"): the users the device may assert. */
export function useDeviceUsersQuery(customerId: number, deviceId: number) {
  return useEndpointQuery(deviceEndpoints.getUsers, { params: { id: customerId, deviceId } });
}

/** `PUT /users/{id}/devices/{deviceId}/users`: sets the users the device may assert. */
export function useSetDeviceUsersMutation(customerId: number, deviceId: number) {
  return useEndpointMutation(deviceEndpoints.setUsers, {
    params: { id: customerId, deviceId },
    invalidates: ['internal_users'],
  });
}

/** `GET /users/{id}/users/` by name (the first 1,000): the user choices of the device's user binding. */
export function useUserChoicesQuery(customerId: number) {
  return useEndpointQuery(internalUserEndpoints.list, {
    params: { id: customerId },
    query: { limit: 1000, offset: 0, sortkey: 'name', sortdir: 'asc' },
  });
}
