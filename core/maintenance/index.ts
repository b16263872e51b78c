export {
  createMaintenanceSwitch,
  DEFAULT_MAINTENANCE_MESSAGE,
  DEFAULT_MAINTENANCE_RETRY_AFTER,
  MaintenanceInput,
  type MaintenanceRequest,
  type MaintenanceState,
  type MaintenanceSwitch,
  maintenanceError,
} from './maintenance-switch.ts'
