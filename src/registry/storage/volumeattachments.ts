// storage.k8s.io/v1 VolumeAttachments (cluster-scoped): status subresource;
// writes need a resourceVersion, as upstream.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { validateVolumeAttachment, validateVolumeAttachmentCreate, validateVolumeAttachmentUpdate } from '../../api/storage/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { keepStatus, statusSubresource } from '../strategy-helpers.js';

export const volumeAttachmentStrategy: Strategy = {
  namespaced: false,
  nameValidator: nameIsDNSSubdomain,
  prepareForCreate(obj) {
    delete obj.status;
  },
  prepareForUpdate: keepStatus,
  validate: validateVolumeAttachmentCreate,
  validateUpdate: validateVolumeAttachmentUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  returnDeletedObject: true,
  subresources: { status: statusSubresource((obj) => validateVolumeAttachment(obj)) },
};
