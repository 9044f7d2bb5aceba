@_exported import ReshapeCore
