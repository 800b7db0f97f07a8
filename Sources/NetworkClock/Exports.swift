@_exported import SNTP
