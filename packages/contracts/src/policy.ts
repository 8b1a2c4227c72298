export interface PolicyId {
  identifier: string;
}

export interface Policy {
  id: PolicyId;
  name: string | null;
  description: string | null;
  deployed: boolean;
  xml: string;
  createdAt: string;
  updatedAt: string;
}
