export const COMPONENT_TYPES = ['PEP', 'PIP', 'PXP'] as const;
export type ComponentType = (typeof COMPONENT_TYPES)[number];

export interface InterfaceParameter {
  name: string;
  description?: string;
  type: string;
  mandatory?: boolean;
}

export interface PepInterfaceDescription {
  type: 'PepInterfaceDescription';
  event: { platform: string; context: string; action: string };
  preventive: boolean;
  methodName: string;
  returnType: string;
  description?: string;
  parameters: InterfaceParameter[];
}

export interface InterfaceDescription {
  type: 'InterfaceDescription';
  methodName: string;
  returnType: string;
  description?: string;
  parameters: InterfaceParameter[];
}

export interface Component {
  id: { componentType: ComponentType; identifier: string };
  urls: string[];
  componentInterfaces: Array<PepInterfaceDescription | InterfaceDescription>;
}
